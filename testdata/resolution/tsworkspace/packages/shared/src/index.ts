export function greet(name: string): string { return name; }

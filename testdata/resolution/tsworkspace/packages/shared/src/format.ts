export function format(value: number): string { return String(value); }

export function save(): void {}

export function secret(): void {}

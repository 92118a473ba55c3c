export function format(value: number): string {
  return value.toFixed(2);
}

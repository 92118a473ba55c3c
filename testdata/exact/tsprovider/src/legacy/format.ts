// A homonym of ../format.ts: same name, another module.
export function format(value: number): string {
  return String(value);
}

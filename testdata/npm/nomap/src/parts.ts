export function part(): number {
  return 1;
}

export function bare(): number {
  return 0;
}

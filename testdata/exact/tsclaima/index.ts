export function claimed(): string {
  return "a";
}

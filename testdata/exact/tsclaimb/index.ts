export function claimed(): string {
  return "b";
}

export function twin(): string {
  return "one of two";
}

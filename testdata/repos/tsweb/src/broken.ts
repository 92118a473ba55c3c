export function ok(): number {
  return 1;
}

export class Half {
  method( {
}

/** Doubles a number. */
export function compute(x: number): number {
  return x * 2;
}

/** Scales a number (was `scale` before 2.0.0). */
export function resize(x: number, by: number): number {
  return x * by;
}

export class Box {
  constructor(public v: number) {}
  open(): number {
    return this.v;
  }
}

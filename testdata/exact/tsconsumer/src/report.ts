import { format, legacyFormat, largest, Shape, Square } from "@exact/shapes";
import { claimed } from "@exact/claimed";
import leftPad from "left-pad";

function total(shapes: Shape[]): number {
  let sum = 0;
  for (const shape of shapes) {
    sum += shape.area();
  }
  return sum;
}

export function report(sizes: number[]): string {
  const shapes: Shape[] = sizes.map((size) => new Square(size));
  const format2 = legacyFormat;
  return [format(total(shapes)), format2(largest(shapes)), claimed(), leftPad("x", 3)].join(" ");
}

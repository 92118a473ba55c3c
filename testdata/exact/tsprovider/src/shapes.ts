/** Anything with an area. */
export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

export class Circle implements Shape {
  constructor(private radius: number) {}
  area(): number {
    return 3 * this.radius * this.radius;
  }
}

export function largest(shapes: Shape[]): number {
  return Math.max(...shapes.map((shape) => shape.area()));
}

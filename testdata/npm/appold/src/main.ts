import { compute, scale } from "@fx/values";

export function legacy(): number {
  return compute(scale(1, 2));
}

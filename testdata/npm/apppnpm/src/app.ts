import { compute, calc, Box, helper } from "@fx/values";
import { facadeCompute } from "@fx/facade";

export function run(): number {
  const box = new Box(3);
  helper();
  return compute(1) + calc(2) + box.open() + facadeCompute(4);
}

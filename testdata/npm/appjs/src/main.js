import { compute } from "@fx/values";

export function twice() {
  return compute(2);
}

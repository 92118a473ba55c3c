import { compute, scale } from "@fx/values";
import { part } from "@fx/nomap";
import { bare } from "@fx/bare";
import { twin } from "@fx/twin";

// `scale` is what the installed 2.0.0 still exports; the source renamed it `resize`.
export function main(): string {
  return [compute(1), scale(2, 3), part(), bare(), twin()].join(",");
}

import { fetchAll } from "tsmodules/src/index";
import { save as persist } from "tsmodules/src/store.js";
import { readFileSync } from "node:fs";
import { join } from "path";
import { pad } from "left-pad";
// Rule T5: package specifiers reach the registered package of that name, as candidates.
export function main(): void { fetchAll("k"); persist(); pad(readFileSync(join("a", "b"), "utf8")); }
import { retired } from "tsmodules/src/store";

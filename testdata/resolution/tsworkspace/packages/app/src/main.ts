import { greet } from "@ws/shared";
import { format } from "@ws/shared/format";
import { secret } from "@ws/shared/internal/secret";
import { format as viaPaths } from "@shared/format";
import { legacy } from "@ws/legacy";
// Workspace packages by name through their manifests (T5), sources by tsconfig paths (T8).
export function run(): string { legacy(); secret(); return greet(format(1)) + viaPaths(2); }

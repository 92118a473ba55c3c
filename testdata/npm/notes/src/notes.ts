// Spells `part` and `compute` on a value of no type, which no analyzer binds; nothing here
// depends on @fx/nomap or @fx/values, so no answer about theirs is a floor for it.
export function run(tool: any): number {
  return tool.part() + tool.compute();
}

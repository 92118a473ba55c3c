// A barrel of another repository's package, renaming what it passes on.
export { compute as facadeCompute, Box } from "@fx/values";

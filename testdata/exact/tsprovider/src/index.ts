export { format } from "./format";
export { format as legacyFormat } from "./legacy/format";
export * from "./shapes";

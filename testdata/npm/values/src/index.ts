export * from "./value";
export { compute as calc } from "./value";
export { helper } from "@fx/helper";

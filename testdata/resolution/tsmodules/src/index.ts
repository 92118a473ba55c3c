export { load as fetchAll } from "./cache";
export * from "./store";

export * from "./parts";

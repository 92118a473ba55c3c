/** Configuration read from disk. */
export interface Config {
  /** The project name. */
  name: string;
  load(path: string): Promise<void>;
}

export type AST = { kind: string };

/**
 * Parses configuration files. Keeps a cache.
 */
export class Parser {
  private cache = new Map<string, AST>();
  readonly strict: boolean = true;

  /** Parse one configuration. */
  parseConfig(input: Config): AST {
    return { kind: input.name };
  }

  static create(): Parser {
    return new Parser();
  }
}

export enum Color {
  Red,
  Green = "green",
}

export function format(value: string): string;
export function format(value: number): string;
export function format(value: unknown): string {
  return String(value);
}

export const parseAll = (inputs: Config[]): AST[] => inputs.map((i) => new Parser().parseConfig(i));

export namespace Internal {
  export function helper(): void {}
}

const LIMIT = 10;
export { LIMIT };

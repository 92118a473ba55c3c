export function load(key: string): string { return key; }
function hidden(): void {}
export { hidden as reveal };
export class Entry {}
export namespace Entry {
  export const size = 1;
}

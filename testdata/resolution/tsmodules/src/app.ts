import { fetchAll, save } from "./index";
import { reveal, Entry } from "./cache.js";
import { nothing } from "./cache";
import { x } from "./missing";
import Default from "./cache";
import * as ns from "./cache";
import { z } from "zod";
export function main(): string { return fetchAll("k"); }
// Calls bind what the module binds: imports (through the barrel) and its own declarations.
function run(save: () => void): void { save(); reveal(); helper(); }
function helper(): void {}
const make = () => new Entry();
helper();
let swap = () => 1;
swap();
export function viaNamespace(): string { return ns.load("n"); }
function shadow(ns: { load(k: string): string }): string { return ns.load("s"); }
interface Local { id: string }
export function useLocal<Entry>(x: Local, e: Entry): Local { return x; }
export function viaNsType(e: ns.Entry): void {}
export const handlers = { run: helper, load: ns.load };
// Heritage binds like a type name: a local class and interface, an imported class.
class Base { run(): void {} }
export class Cached extends Base implements Local { id = ""; run(): void {} }
interface Named extends Local { name: string }
export class Stored extends Entry {}
export function local(): unknown { class Inner extends Base {} return Inner; }
export class Runner extends Base {
  start(): void { this.run(); this.stop(); const later = () => this.start(); later(); }
  stop(): void { const f = function (this: { stop(): void }) { this.stop(); }; f.call(this); }
}
export function fresh(): void { new Runner().start(); }
export function viaType(r: Runner): void { r.stop(); const again = new Runner(); again.start(); }

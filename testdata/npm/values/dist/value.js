"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Box = void 0;
exports.compute = compute;
exports.resize = resize;
/** Doubles a number. */
function compute(x) {
    return x * 2;
}
/** Scales a number (was `scale` before 2.0.0). */
function resize(x, by) {
    return x * by;
}
class Box {
    constructor(v) {
        this.v = v;
    }
    open() {
        return this.v;
    }
}
exports.Box = Box;

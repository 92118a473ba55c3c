/** Doubles a number. */
export declare function compute(x: number): number;
/** Scales a number (was `scale` before 2.0.0). */
export declare function resize(x: number, by: number): number;
export declare class Box {
    v: number;
    constructor(v: number);
    open(): number;
}
//# sourceMappingURL=value.d.ts.map
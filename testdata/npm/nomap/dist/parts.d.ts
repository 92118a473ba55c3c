export declare function part(): number;

export declare function bare(): number;

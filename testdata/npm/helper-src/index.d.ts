export declare function helper(): string;

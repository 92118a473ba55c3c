export declare function legacy(): void;

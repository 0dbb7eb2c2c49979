/** Types of scripts/wasm.mjs, for the test that checks the committed module against the text. */
export declare const WAT: string;
export declare const OUT: string;
export declare function assemble(): Promise<Buffer>;
export declare function source(bytes: Buffer): string;

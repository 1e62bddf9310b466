// Types for bin/gc-flags.js, plain JavaScript run before the TypeScript sources load.

/** The bound of each of V8's two young-generation semi-spaces that bin/serve.js starts Node with, in MB. */
export declare const SEMI_SPACE_MB: number;
/** The garbage collector's settings bin/serve.js starts Node with, unless the operator set them. */
export declare const GC_FLAGS: readonly string[];
/** The flags of GC_FLAGS not set on the command line (`execArgv`) or in NODE_OPTIONS, in any spelling. */
export declare function gcFlagsMissing(execArgv?: readonly string[], nodeOptions?: string): string[];
/** Starts this process again (process.execve) with the flags of GC_FLAGS it was not given. */
export declare function applyGcFlags(): void;

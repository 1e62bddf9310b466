// Types for bin/young-generation.js, plain JavaScript run before the TypeScript sources load.

/** The bound of each of V8's two young-generation semi-spaces that bin/serve.js starts Node with, in MB. */
export declare const SEMI_SPACE_MB: number;
/** Whether `--max-semi-space-size` is already set, on the command line (`execArgv`) or in NODE_OPTIONS. */
export declare function youngGenerationBounded(execArgv?: readonly string[], nodeOptions?: string): boolean;
/** Starts this process again (process.execve) with --max-semi-space-size when none was given. */
export declare function boundYoungGeneration(): void;

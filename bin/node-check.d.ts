// Types for bin/node-check.js, which stays plain JavaScript so an old Node can parse it.

/** The oldest Node these scripts run on. */
export declare const MINIMUM_NODE: string;
/** The message to print for a Node that cannot run this service, or null when it can. */
export declare function unsupportedNodeMessage(version: string): string | null;
/** Exits with a plain message when this Node lacks node:sqlite or type stripping. */
export declare function requireSupportedNode(): void;
/** Drops Node 22's "SQLite is an experimental feature" warning; every other warning still shows. */
export declare function silenceSqliteWarning(): void;
/** The entry module's URL for `name` (`serve` or `migrate`). */
export declare function entry(name: string): string;

// Plain JavaScript, run by bin/serve.js before anything else.

/** The bound of each of V8's two young-generation semi-spaces that bin/serve.js starts Node with, in MB. */
export const SEMI_SPACE_MB = 16;

/**
 * The garbage collector's settings bin/serve.js starts Node with, each kept out when the operator set
 * it (docs/operations.md, Memory and CPU under a heavy write load):
 * - the young generation bounded: under a heavy write load, group commit keeps up to 100 creates
 *   waiting for one fsync; their objects survive V8's scavenges, and V8 grows the young generation
 *   towards 2 × 64 MB;
 * - no allocation-site pretenuring: those same waiting objects are found alive at a scavenge, so V8
 *   judges their allocation sites long-lived and allocates from them in the old generation; they die
 *   a moment later, and only a full mark-compact frees them. In about half of the processes started
 *   this made creates cost 10–30% more CPU (docs/benchmarks.md).
 */
export const GC_FLAGS = [`--max-semi-space-size=${SEMI_SPACE_MB}`, '--no-allocation-site-pretenuring'];

// The name a flag is set by, in any of its spellings: `--x=1`, `--x 1`, `--no-x`, `--x`, `--x_y`.
const nameOf = (arg) => arg.split('=')[0].replace(/^--no-/, '--').replaceAll('_', '-');

/** The flags of GC_FLAGS not already set for this process, on its command line or in NODE_OPTIONS. */
export function gcFlagsMissing(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '') {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter((arg) => arg.startsWith('--')).map(nameOf));
  return GC_FLAGS.filter((flag) => !given.has(nameOf(flag)));
}

/**
 * V8 reads these only when a process starts, so when one is missing this process becomes Node again
 * with them (`process.execve`: the same pid and stdio, nothing left behind); workers it forks inherit
 * them. A setting given on the command line or in NODE_OPTIONS is kept. On a Node without execve
 * (before 22.15 and 23.11, or Windows) nothing changes.
 */
export function applyGcFlags() {
  const missing = gcFlagsMissing();
  if (typeof process.execve !== 'function' || missing.length === 0) return;
  const argv = [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)];
  process.execve(process.execPath, argv, process.env);
}

// Plain JavaScript, run by bin/serve.js before anything else.

/** The bound of each of V8's two young-generation semi-spaces that bin/serve.js starts Node with, in MB. */
export const SEMI_SPACE_MB = 16;

const FLAG = '--max-semi-space-size';

/** Whether `--max-semi-space-size` is already set for this process, on its command line or in NODE_OPTIONS. */
export function youngGenerationBounded(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '') {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`));
}

/**
 * Under a heavy write load, group commit keeps up to 100 creates waiting for one fsync; their objects
 * survive V8's scavenges, and V8 grows the young generation towards 2 × 64 MB. V8 reads its bound only
 * when a process starts, so when none was given this process becomes Node again with one
 * (`process.execve`: the same pid and stdio, nothing left behind); workers it forks inherit it. A value
 * given on the command line or in NODE_OPTIONS is kept. On a Node without execve (before 22.15 and
 * 23.11, or Windows) nothing changes.
 */
export function boundYoungGeneration() {
  if (typeof process.execve !== 'function' || youngGenerationBounded()) return;
  const argv = [process.execPath, `${FLAG}=${SEMI_SPACE_MB}`, ...process.execArgv, ...process.argv.slice(1)];
  process.execve(process.execPath, argv, process.env);
}

// BENCH_BASELINE=<git ref>: the service as it was at that commit, built like ours, so a change is
// measured against what it changed in the same run, on the same machine, in adjacent turns.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { installBuild } from './install.js';
import { ROOT } from './paths.js';

/**
 * The build every run measures ours against unless told otherwise: b433c7c, the service before the
 * events' outbox (issue 32: every run shows what the outbox costs).
 */
export const DEFAULT_BASELINE = 'b433c7c';

/** The baseline of BENCH_BASELINE: unset or empty for the default, `none` for no baseline, else a git ref. */
export const baselineRef = (value) => (value === 'none' ? undefined : value || DEFAULT_BASELINE);

/** Exports `ref` of the checkout's repository into `<dir>/baseline-src`, builds it, and returns the build with its commit. */
export function baselineBuild(ref, dir) {
  let commit;
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`BENCH_BASELINE=${ref}: not a commit of the repository at ${ROOT} (a git checkout with that commit is needed: \`git fetch --unshallow\` in a shallow clone), or BENCH_BASELINE=none to run without a baseline`);
  }
  const source = join(dir, 'baseline-src');
  mkdirSync(source, { recursive: true });
  // git archive: the committed tree alone, whatever the working tree holds; no worktree to clean up.
  execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', ROOT, commit, source], { stdio: ['ignore', 'ignore', 'inherit'] });
  // Its tsc needs @types/node: the checkout's node_modules; its Fastify peer, this bench's.
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  symlinkSync(join(ROOT, 'bench', 'node_modules'), join(source, 'bench', 'node_modules'));
  // The Fastify peer as it was then, doing that version's work: "Fastify ÷ ours" before and after.
  const peer = join(source, 'bench', 'peers', 'fastify.js');
  return { ...installBuild(source, join(dir, 'baseline')), ref, commit: commit.slice(0, 12), peer };
}

// BENCH_BASELINE=<git ref>: the service as it was at that commit, built like ours, so a change is
// measured against what it changed in the same run, on the same machine, in adjacent turns.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { installBuild } from './install.js';
import { ROOT } from './paths.js';

/** Exports `ref` of the checkout's repository into `<dir>/baseline-src`, builds it, and returns the build with its commit. */
export function baselineBuild(ref, dir) {
  let commit;
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`BENCH_BASELINE=${ref}: not a commit of the repository at ${ROOT} (a git checkout is needed)`);
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

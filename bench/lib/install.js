// The service as an operator installs it: the package layout inside node_modules, where
// bin/serve.js runs the compiled dist/ (no TypeScript stripping at run time, as in production).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** Builds dist/ into `<dir>/node_modules/svc-http-sqlite` beside bin/, sql/ and package.json; returns its bin/serve.js. */
export function installedServe(dir) {
  const target = join(dir, 'node_modules', 'svc-http-sqlite');
  mkdirSync(target, { recursive: true });
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  try {
    execFileSync(tsc, ['-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(target, 'dist')], { cwd: ROOT, stdio: 'pipe' });
  } catch (error) {
    // tsc emits even with type errors (another engineer's file mid-edit); a missing output is fatal below.
    process.stderr.write(`tsc reported errors while building the benchmark copy:\n${error.stdout ?? ''}\n`);
  }
  for (const part of ['bin', 'sql', 'package.json']) cpSync(join(ROOT, part), join(target, part), { recursive: true });
  return join(target, 'bin/serve.js');
}

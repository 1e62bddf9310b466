import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { GC_FLAGS, gcFlagsMissing } from '../../bin/gc-flags.js';
import { BIN, linesOf, startBin } from '../support/cli.ts';
import { migratedDatabaseFile } from '../support/server.ts';

// bin/serve.js starts Node again with the garbage collector's settings of bin/gc-flags.js (a bounded
// young generation, no allocation-site pretenuring), each unless the operator set it: what keeps the
// memory and the CPU of a heavy write load down (docs/operations.md).

const folders: string[] = [];
const children: ReturnType<typeof startBin>[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const onLinux = process.platform === 'linux' ? false : 'reads /proc/<pid>/cmdline';
const withExecve = typeof process.execve === 'function' ? false : 'this Node has no process.execve';

const [SEMI_SPACE, NO_PRETENURING] = GC_FLAGS as [string, string];

test('a setting is seen on the command line or in NODE_OPTIONS, in any spelling', () => {
  assert.deepEqual(gcFlagsMissing([], ''), [SEMI_SPACE, NO_PRETENURING]);
  assert.deepEqual(gcFlagsMissing(['--max-old-space-size=512'], '--inspect'), [SEMI_SPACE, NO_PRETENURING]);
  assert.deepEqual(gcFlagsMissing(['--max-semi-space-size=8'], ''), [NO_PRETENURING]);
  assert.deepEqual(gcFlagsMissing(['--max-semi-space-size', '8'], ''), [NO_PRETENURING]);
  assert.deepEqual(gcFlagsMissing([], '--trace-warnings --max_semi_space_size=64'), [NO_PRETENURING]);
  assert.deepEqual(gcFlagsMissing(['--allocation-site-pretenuring'], ''), [SEMI_SPACE], 'pretenuring asked for is kept');
  assert.deepEqual(gcFlagsMissing([], '--no-allocation-site-pretenuring --max-semi-space-size=32'), []);
});

/** Starts serve, waits for its start-up line, and returns the arguments its process runs with now. */
async function serveArguments(env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<{ pid: unknown; child: number | undefined; argv: string[] }> {
  const { dir, dbPath } = migratedDatabaseFile();
  folders.push(dir);
  const child = startBin(BIN.serve, [], { env: { SVC_PORT: '0', SVC_DB_PATH: dbPath, ...env }, nodeArgs });
  children.push(child);
  const deadline = Date.now() + 15_000;
  let line: string | undefined;
  while (line === undefined && Date.now() < deadline && child.exitCode === null) {
    line = linesOf(child.output.stdout).find((text) => /listening on/.test(text));
    if (line === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.ok(line, `serve started; stderr: ${child.output.stderr}`);
  const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  child.kill('SIGTERM');
  assert.equal((await child.done).code, 0);
  return { pid: (JSON.parse(line) as Record<string, unknown>)['pid'], child: child.pid, argv };
}

test('serve runs with every setting of GC_FLAGS when none was given, in the same process', { skip: onLinux || withExecve }, async () => {
  const { pid, child, argv } = await serveArguments({});
  for (const flag of GC_FLAGS) assert.ok(argv.includes(flag), `${flag} in ${argv.join(' ')}`);
  assert.equal(pid, child, 'the service logs the pid its parent started: nothing was left behind');
});

test('a setting the operator gives in NODE_OPTIONS is kept, and the others added', { skip: onLinux || withExecve }, async () => {
  const { argv } = await serveArguments({ NODE_OPTIONS: '--max-semi-space-size=32' });
  assert.ok(!argv.some((arg) => arg.startsWith('--max-semi-space-size')), argv.join(' '));
  assert.ok(argv.includes(NO_PRETENURING), argv.join(' '));
});

test('with every setting given, serve is not started again', { skip: onLinux || withExecve }, async () => {
  // V8's pretenuring flag is not one NODE_OPTIONS may carry: it is given on the command line.
  const { pid, child, argv } = await serveArguments({ NODE_OPTIONS: '--max-semi-space-size=32' }, ['--allocation-site-pretenuring']);
  assert.ok(!GC_FLAGS.some((flag) => argv.includes(flag)), argv.join(' '));
  assert.ok(argv.includes('--allocation-site-pretenuring'), argv.join(' '));
  assert.equal(pid, child);
});

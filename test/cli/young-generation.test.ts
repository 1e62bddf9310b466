import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { SEMI_SPACE_MB, youngGenerationBounded } from '../../bin/young-generation.js';
import { BIN, linesOf, startBin } from '../support/cli.ts';
import { migratedDatabaseFile } from '../support/server.ts';

// bin/serve.js starts Node again with a bounded young generation (bin/young-generation.js), unless the
// operator gave a bound: what keeps the memory of a heavy write load down (docs/operations.md).

const folders: string[] = [];
const children: ReturnType<typeof startBin>[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const onLinux = process.platform === 'linux' ? false : 'reads /proc/<pid>/cmdline';
const withExecve = typeof process.execve === 'function' ? false : 'this Node has no process.execve';

test('a bound is seen on the command line or in NODE_OPTIONS, in either spelling', () => {
  assert.equal(youngGenerationBounded([], ''), false);
  assert.equal(youngGenerationBounded(['--max-old-space-size=512'], '--inspect'), false);
  assert.equal(youngGenerationBounded(['--max-semi-space-size=8'], ''), true);
  assert.equal(youngGenerationBounded(['--max-semi-space-size', '8'], ''), true);
  assert.equal(youngGenerationBounded([], '--trace-warnings --max-semi-space-size=64'), true);
});

/** Starts serve, waits for its start-up line, and returns the arguments its process runs with now. */
async function serveArguments(env: Record<string, string>): Promise<{ pid: unknown; child: number | undefined; argv: string[] }> {
  const { dir, dbPath } = migratedDatabaseFile();
  folders.push(dir);
  const child = startBin(BIN.serve, [], { env: { SVC_PORT: '0', SVC_DB_PATH: dbPath, ...env } });
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

test('serve runs with --max-semi-space-size when none was given, in the same process', { skip: onLinux || withExecve }, async () => {
  const { pid, child, argv } = await serveArguments({});
  assert.ok(argv.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`), argv.join(' '));
  assert.equal(pid, child, 'the service logs the pid its parent started: nothing was left behind');
});

test('a bound the operator gives in NODE_OPTIONS is kept', { skip: onLinux || withExecve }, async () => {
  const { argv } = await serveArguments({ NODE_OPTIONS: '--max-semi-space-size=32' });
  assert.ok(!argv.some((arg) => arg.startsWith('--max-semi-space-size')), argv.join(' '));
});

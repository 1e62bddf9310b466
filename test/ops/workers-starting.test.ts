import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { migratedDatabaseFile } from '../support/server.ts';
import { type ServeProcess, spawnServe, urlOf } from './support.ts';

// Workers as they start (docs/operations.md, Workers): a SIGTERM that reaches a worker before it could
// install its handler (the service starting, a replacement after a SIGKILL) is not a failed stop, and the
// primary says it listens only once every worker does.

const SLOW_WORKER = fileURLToPath(new URL('./slow-worker-start.ts', import.meta.url));
type Line = Record<string, unknown>;

const workerStarts = (serve: ServeProcess): number[] => serve.lines.filter((line) => line['msg'] === 'worker started').map((line) => Number(line['workerPid']));
const listening = (serve: ServeProcess): Line[] => serve.lines.filter((line) => line['msg'] === 'worker listening');

function killWorkers(serve: ServeProcess): void {
  for (const pid of workerStarts(serve)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  serve.kill();
}

// The primary's verdict on the stop: its exit code, the workers it found unclean, and its own last line.
async function stopped(serve: ServeProcess): Promise<{ exit: number | string; unclean: Line[]; primaryExitCode: unknown }> {
  const exit = await serve.exited;
  const unclean = serve.lines.filter((line) => line['msg'] === 'worker did not stop cleanly');
  const primaryExitCode = serve.lines.find((line) => line['msg'] === 'stopped' && line['pid'] === serve.child.pid)?.['exitCode'];
  return { exit, unclean, primaryExitCode };
}

function serveWithWorkers(env: Record<string, string> = {}): { serve: ServeProcess; cleanUp: () => void } {
  const { dir, dbPath } = migratedDatabaseFile();
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2', ...env });
  return {
    serve,
    cleanUp: () => {
      killWorkers(serve);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const slowly = (at: 'boot' | 'sources', fromWorker = 1): Record<string, string> => ({
  NODE_OPTIONS: `--import=${SLOW_WORKER}`,
  TEST_SLOW_WORKER_AT: at,
  TEST_SLOW_WORKER_FROM: String(fromWorker),
});

const paused = (line: Line): boolean => line['msg'] === 'test: worker paused';

test('SIGTERM as the workers start (at the primary\'s "worker started"): the primary exits 0, every worker stopped cleanly; three times', { timeout: 90_000 }, async (t) => {
  for (let run = 1; run <= 3; run++) {
    const { serve, cleanUp } = serveWithWorkers();
    t.after(cleanUp);
    await serve.waitForLine((line) => line['msg'] === 'worker started');
    serve.child.kill('SIGTERM');
    const result = await stopped(serve);
    assert.deepEqual(result, { exit: 0, unclean: [], primaryExitCode: 0 }, `run ${run}`);
    assert.equal(serve.lines.filter((line) => typeof line['url'] === 'string').length, 0, `run ${run}: no URL announced while stopping`);
  }
});

test('SIGTERM as a replacement starts (at its "worker started", after a SIGKILL): the primary exits 0; three times', { timeout: 120_000 }, async (t) => {
  for (let run = 1; run <= 3; run++) {
    const { serve, cleanUp } = serveWithWorkers();
    t.after(cleanUp);
    await urlOf(serve);
    const [victim] = workerStarts(serve);
    process.kill(victim as number, 'SIGKILL');
    await serve.waitForLine(() => workerStarts(serve).length === 3);
    serve.child.kill('SIGTERM');
    assert.deepEqual(await stopped(serve), { exit: 0, unclean: [], primaryExitCode: 0 }, `run ${run}`);
  }
});

test('a worker killed by the forwarded SIGTERM before any handler of its own (Node still starting) stopped with nothing lost: exit 0', { timeout: 60_000 }, async (t) => {
  // The service starting: the first worker is held before bin/serve.js runs when the primary is told to stop.
  const starting = serveWithWorkers(slowly('boot'));
  t.after(starting.cleanUp);
  await starting.serve.waitForLine(paused);
  starting.serve.child.kill('SIGTERM');
  assert.deepEqual(await stopped(starting.serve), { exit: 0, unclean: [], primaryExitCode: 0 });
  const before = starting.serve.lines.filter((line) => line['msg'] === 'worker stopped before it listened');
  assert.ok(before.length >= 1 && before.every((line) => line['signal'] === 'SIGTERM'), JSON.stringify(before));

  // A replacement (cluster id 3) held the same way, beside a worker that listens and stops cleanly.
  const replacing = serveWithWorkers(slowly('boot', 3));
  t.after(replacing.cleanUp);
  await urlOf(replacing.serve);
  const [victim, survivor] = workerStarts(replacing.serve);
  process.kill(victim as number, 'SIGKILL');
  const pause = await replacing.serve.waitForLine(paused);
  replacing.serve.child.kill('SIGTERM');
  assert.deepEqual(await stopped(replacing.serve), { exit: 0, unclean: [], primaryExitCode: 0 });
  assert.ok(replacing.serve.lines.some((line) => line['msg'] === 'worker stopped before it listened' && line['workerPid'] === pause['pid']));
  assert.ok(replacing.serve.lines.some((line) => line['msg'] === 'stopped' && line['pid'] === survivor), 'the listening worker stopped by itself');
});

test('a worker signalled while its sources load holds the signal: it starts nothing, stops by itself and exits 0', { timeout: 60_000 }, async (t) => {
  const { serve, cleanUp } = serveWithWorkers(slowly('sources'));
  t.after(cleanUp);
  const pause = await serve.waitForLine(paused);
  serve.child.kill('SIGTERM');
  assert.deepEqual(await stopped(serve), { exit: 0, unclean: [], primaryExitCode: 0 });
  const own = serve.lines.filter((line) => line['pid'] === pause['pid']).map((line) => line['msg']);
  assert.deepEqual(own, ['test: worker paused', 'shutting down', 'stopped'], 'its own lines: the signal was heard, nothing was started');
  assert.ok(!serve.lines.some((line) => line['msg'] === 'worker stopped before it listened' && line['workerPid'] === pause['pid']));
  assert.ok(!listening(serve).some((line) => line['workerPid'] === pause['pid']), 'it never listened');
});

test('a single process signalled while its sources load stops by itself and exits 0, announcing no URL', { timeout: 60_000 }, async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  const serve = spawnServe({ SVC_DB_PATH: dbPath, ...slowly('sources', 0) });
  t.after(() => {
    serve.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await serve.waitForLine(paused);
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0);
  assert.deepEqual(serve.lines.map((line) => line['msg']).filter((msg) => msg !== 'test: worker paused'), ['shutting down', 'stopped']);
});

// GET on a new connection (the primary hands each new connection to the next worker); resolves with the status.
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

test('the primary announces its URL once every worker listens, and connections made at once reach both', { timeout: 60_000 }, async (t) => {
  // The second worker is slow to load, as on a loaded machine: 500 ms after the first listens.
  const { serve, cleanUp } = serveWithWorkers(slowly('sources', 2));
  t.after(cleanUp);
  const url = await urlOf(serve);
  const announced = serve.lines.findIndex((line) => typeof line['url'] === 'string');
  const workerLines = serve.lines.map((line, index) => [line, index] as const).filter(([line]) => line['msg'] === 'worker listening');
  assert.equal(workerLines.length, 2, 'both workers said they listen before the primary did');
  assert.ok(workerLines.every(([, index]) => index < announced));
  for (let i = 0; i < 6; i++) assert.equal(await getOnNewConnection(`${url}/api/products?n=${i}`), 200);
  await serve.waitForLine((line) => (line['req'] as { url?: string } | undefined)?.url === '/api/products?n=5');
  const servers = new Set(serve.lines.filter((line) => /\?n=\d$/.test(String((line['req'] as { url?: string } | undefined)?.url))).map((line) => line['pid']));
  assert.equal(servers.size, 2, 'the first connections after the URL was announced reached both workers');
  assert.deepEqual(new Set(listening(serve).map((line) => line['workerPid'])), servers);
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0);
});

test('the primary signalled while its sources load forks no worker and exits 0', { timeout: 60_000 }, async (t) => {
  const { serve, cleanUp } = serveWithWorkers(slowly('sources', 0));
  t.after(cleanUp);
  await serve.waitForLine((line) => paused(line) && line['pid'] === serve.child.pid);
  serve.child.kill('SIGTERM');
  assert.deepEqual(await stopped(serve), { exit: 0, unclean: [], primaryExitCode: 0 });
  assert.deepEqual(workerStarts(serve), [], 'no worker was forked');
});

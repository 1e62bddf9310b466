import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { restartDelayMs, RestartPolicy } from '../../src/workers/restart-policy.ts';
import { migratedDatabaseFile, postJson } from '../support/server.ts';
import { PRODUCT, type ServeProcess, spawnServe, urlOf } from './support.ts';

function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

const workerStarts = (lines: Record<string, unknown>[]): number[] =>
  lines.filter((line) => line['msg'] === 'worker started').map((line) => Number(line['workerPid']));

test('SVC_WORKERS=2: a SIGKILLed worker is replaced, service continues, SIGTERM exits 0', async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2' });
  t.after(() => {
    for (const pid of workerStarts(serve.lines)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    serve.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = await urlOf(serve);
  await serve.waitForLine(() => serve.lines.filter((line) => line['msg'] === 'worker listening').length === 2);
  const primaryPid = serve.child.pid;

  // Requests are served by the workers, each logging with its own pid.
  const created = await postJson(`${url}/api/products`, PRODUCT);
  assert.equal(created.status, 201);
  await created.arrayBuffer();
  const requestLine = await serve.waitForLine((line) => line['msg'] === 'request completed');
  const victim = Number(requestLine['pid']);
  assert.ok(workerStarts(serve.lines).includes(victim));
  assert.notEqual(victim, primaryPid);

  process.kill(victim, 'SIGKILL');
  await serve.waitForLine((line) => line['msg'] === 'worker died; replacing it' && line['workerPid'] === victim);
  await serve.waitForLine(() => workerStarts(serve.lines).length === 3);
  const replacement = workerStarts(serve.lines)[2];
  assert.ok(replacement !== undefined && replacement !== victim);
  await serve.waitForLine((line) => line['msg'] === 'worker listening' && line['workerPid'] === replacement);

  // Each on a new connection, so the primary's round-robin hands them to both workers.
  for (let i = 0; i < 6; i++) assert.equal(await getOnNewConnection(`${url}/api/products?n=${i}`), 200);
  const servedBy = await serve.waitForLine((line) => (line['req'] as { url?: string } | undefined)?.url === '/api/products?n=5');
  assert.ok(servedBy !== undefined);
  const servers = new Set(serve.lines.filter((line) => /\?n=\d$/.test(String((line['req'] as { url?: string } | undefined)?.url))).map((line) => line['pid']));
  assert.ok(servers.has(replacement), 'the replacement serves requests');
  // The URL was announced once, by the primary, for all workers.
  assert.equal(serve.lines.filter((line) => typeof line['url'] === 'string').length, 1);
  assert.equal(serve.lines.find((line) => typeof line['url'] === 'string')?.['pid'], primaryPid);

  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0);
  const stoppedWorkers = serve.lines.filter((line) => line['msg'] === 'stopped' && line['pid'] !== primaryPid);
  assert.equal(stoppedWorkers.length, 2);
});

// The exit code, or a failure if the process is still running `ms` later.
function exitWithin(serve: ServeProcess, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the primary is still running ${ms} ms after SIGTERM`)), ms);
  });
  return Promise.race([serve.exited, late]).finally(() => clearTimeout(timer));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('SVC_WORKERS=2: a worker that does not stop is SIGKILLed SVC_SHUTDOWN_TIMEOUT_MS + 5 s after SIGTERM, and the primary exits 1', async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2', SVC_SHUTDOWN_TIMEOUT_MS: '1000' });
  t.after(() => {
    // SIGKILL ends a stopped process too.
    for (const pid of workerStarts(serve.lines)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    serve.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await urlOf(serve);
  await serve.waitForLine(() => serve.lines.filter((line) => line['msg'] === 'worker listening').length === 2);
  const [frozen, healthy] = workerStarts(serve.lines);
  assert.ok(frozen !== undefined && healthy !== undefined);
  // A stopped process cannot run its SIGTERM handler: the honest stand-in for a worker stuck in a
  // debugger, swapped out, or in a blocking call that outlasts every deadline.
  process.kill(frozen, 'SIGSTOP');

  const signalledAt = Date.now();
  serve.child.kill('SIGTERM');
  assert.equal(await exitWithin(serve, 30_000), 1);
  const exitedAfter = Date.now() - signalledAt;
  assert.ok(exitedAfter >= 5_950, `exited ${exitedAfter} ms after SIGTERM: the frozen worker had SVC_SHUTDOWN_TIMEOUT_MS + 5 s`);
  const killing = serve.lines.find((line) => line['msg'] === 'workers did not exit in time; killing them');
  assert.deepEqual(killing?.['workers'], [frozen]);
  assert.equal(isRunning(frozen), false, 'the frozen worker is gone');
  const healthyLines = serve.lines.filter((line) => line['pid'] === healthy || line['workerPid'] === healthy);
  assert.ok(
    healthyLines.some((line) => line['msg'] === 'stopped' && line['pid'] === healthy),
    `the other worker stopped by itself; its lines and the primary's about it:\n${healthyLines.map((line) => JSON.stringify(line)).join('\n')}`,
  );
  assert.equal(serve.lines.find((line) => line['msg'] === 'stopped' && line['pid'] === serve.child.pid)?.['exitCode'], 1);
});

test('SVC_WORKERS=2: a worker whose own shutdown fails makes the primary exit 1, once the other has stopped', async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  const failingShutdown = fileURLToPath(new URL('./failing-shutdown.ts', import.meta.url));
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2', NODE_OPTIONS: `--import=${failingShutdown}` });
  t.after(() => {
    for (const pid of workerStarts(serve.lines)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    serve.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await urlOf(serve);
  await serve.waitForLine(() => serve.lines.filter((line) => line['msg'] === 'worker listening').length === 2);
  serve.child.kill('SIGTERM');
  assert.equal(await exitWithin(serve, 30_000), 1);
  const failed = serve.lines.filter((line) => line['msg'] === 'shutdown failed').map((line) => line['pid']);
  assert.equal(failed.length, 1, 'the first worker failed its shutdown');
  const unclean = serve.lines.filter((line) => line['msg'] === 'worker did not stop cleanly');
  assert.deepEqual(unclean.map((line) => [line['workerPid'], line['code']]), [[failed[0], 1]]);
  assert.equal(serve.lines.filter((line) => line['msg'] === 'stopped' && line['pid'] !== serve.child.pid).length, 1, 'the other worker stopped cleanly');
  assert.equal(serve.lines.find((line) => line['msg'] === 'stopped' && line['pid'] === serve.child.pid)?.['exitCode'], 1);
});

test('the primary refuses a database that is not migrated, before forking anything', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-workers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const serve = spawnServe({ SVC_DB_PATH: join(dir, 'missing.db'), SVC_WORKERS: '2' });
  t.after(() => serve.kill());
  assert.notEqual(await serve.exited, 0);
  assert.match(serve.stderr(), /bin\/migrate\.js/);
  assert.equal(workerStarts(serve.lines).length, 0);
});

test('workers that cannot start make the primary give up loudly with a non-zero exit', async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  // The schema check passes, but no worker can listen: the port is taken.
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = String((blocker.address() as AddressInfo).port);
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2', SVC_PORT: port });
  t.after(() => {
    serve.kill();
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(await serve.exited, 1);
  const fatal = serve.lines.find((line) => line['level'] === 60 && line['pid'] === serve.child.pid);
  assert.equal(fatal?.['msg'], 'workers keep dying; giving up');
  assert.match(String(fatal?.['reason']), /died before listening/);
});

test('restart back-off doubles from 100 ms and is capped at 10 s', () => {
  assert.deepEqual([1, 2, 3, 4, 7, 8, 20].map(restartDelayMs), [100, 200, 400, 800, 6_400, 10_000, 10_000]);
});

test('a crash loop is more than workers × 5 deaths within 60 s', () => {
  const clock = { now: 0 };
  const policy = new RestartPolicy(2, () => clock.now);
  for (let death = 1; death <= 10; death++) {
    clock.now += 1_000;
    assert.deepEqual(policy.died(true), { giveUp: false, delayMs: restartDelayMs(death) });
  }
  clock.now += 1_000;
  const decision = policy.died(true);
  assert.equal(decision.giveUp, true);
});

test('deaths older than 60 s are forgotten, and so is their back-off', () => {
  const clock = { now: 0 };
  const policy = new RestartPolicy(1, () => clock.now);
  for (let i = 0; i < 5; i++) assert.equal(policy.died(true).giveUp, false);
  clock.now += 60_001;
  assert.deepEqual(policy.died(true), { giveUp: false, delayMs: 100 });
});

test('start-up failures give up after three in a row, unless a worker listens in between', () => {
  const policy = new RestartPolicy(4, () => 0);
  assert.equal(policy.died(false).giveUp, false);
  assert.equal(policy.died(false).giveUp, false);
  policy.listened();
  assert.equal(policy.died(false).giveUp, false);
  assert.equal(policy.died(false).giveUp, false);
  assert.equal(policy.died(false).giveUp, true);
});

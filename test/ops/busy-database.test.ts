import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { isDatabaseBusy } from '../../src/sqlite/busy.ts';
import { migratedDatabaseFile } from '../support/server.ts';
import { PRODUCT, type ServeProcess, spawnServe, urlOf } from './support.ts';
import { holdWriteLock, type TimedResponse, timedRequest, type WriteLockHolder } from './write-lock.ts';

// docs/operations.md, Another process holding the SQLite file: while it holds the write lock, a process never stops
// answering: reads and readiness go on at once (WAL readers never need that lock), and a write waits
// for the lock without blocking, up to 5 s, then is 503 `unavailable` with Retry-After.

// Generous for a loaded machine, yet far below the seconds a process frozen by the lock takes.
const AT_ONCE_MS = 500;
// The contract's own time: a write waits up to 5 s for the lock.
const LOCK_WAIT_MS = 5_000;

interface Service {
  serve: ServeProcess;
  url: string;
  dbPath: string;
  productCount(): number;
}

async function startService(t: { after(fn: () => unknown): void }, workers: number): Promise<Service> {
  const { dir, dbPath } = migratedDatabaseFile();
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: String(workers) });
  t.after(async () => {
    serve.kill();
    await serve.exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const url = await urlOf(serve);
  if (workers > 1) await serve.waitForLine(() => serve.lines.filter((line) => line['msg'] === 'worker listening').length === workers);
  const productCount = (): number => {
    const db = new DatabaseSync(dbPath, { readOnly: true });
    try {
      return Number(db.prepare('SELECT count(*) AS n FROM products').get()?.['n']);
    } finally {
      db.close();
    }
  };
  return { serve, url, dbPath, productCount };
}

async function lockedBy(t: { after(fn: () => unknown): void }, dbPath: string): Promise<WriteLockHolder> {
  const holder = await holdWriteLock(dbPath);
  t.after(() => holder.kill());
  return holder;
}

// Reads of every kind, one after another for `forMs`, each on a new connection (so that with two
// workers both answer some).
async function timedReads(service: Service, productId: number, forMs: number): Promise<Map<string, TimedResponse>> {
  const timed = new Map<string, TimedResponse>();
  const until = performance.now() + forMs;
  for (let round = 0; round < 3 || performance.now() < until; round++) {
    for (const [name, path] of [['ping', '/api/ping'], ['product', `/api/products/${productId}`], ['list', '/api/products']] as const) {
      const requestId = `read-${name}-${round}`;
      timed.set(requestId, await timedRequest(`${service.url}${path}`, { requestId }));
    }
  }
  return timed;
}

function assertAnsweredAtOnce(timed: Map<string, TimedResponse>): void {
  for (const [requestId, response] of timed) {
    assert.equal(response.status, 200, `${requestId}: ${response.body}`);
    assert.ok(response.ms < AT_ONCE_MS, `${requestId} took ${Math.round(response.ms)} ms while another process held the write lock`);
  }
}

// The workers that answered the requests named `requestIds`, from their access-log lines.
async function servedBy(serve: ServeProcess, requestIds: readonly string[]): Promise<Set<unknown>> {
  const pids = new Set<unknown>();
  for (const requestId of requestIds) pids.add((await serve.waitForLine((line) => line['reqId'] === requestId))['pid']);
  return pids;
}

async function createProduct(url: string): Promise<number> {
  const created = await timedRequest(`${url}/api/products`, { method: 'POST', body: PRODUCT });
  assert.equal(created.status, 201, created.body);
  return (JSON.parse(created.body) as { id: number }).id;
}

for (const workers of [1, 2]) {
  test(`SVC_WORKERS=${workers}: while another process holds the write lock, reads answer at once and a write waits for the lock`, { timeout: 60_000 }, async (t) => {
    const service = await startService(t, workers);
    const productId = await createProduct(service.url);
    const holder = await lockedBy(t, service.dbPath);
    // One write per worker, sent first: a process that waited for the lock on its main thread would
    // freeze, and every read it was handed after it would take as long as the lock is held.
    let settled = 0;
    const writes = Array.from({ length: workers }, (_, i) =>
      timedRequest(`${service.url}/api/products`, { method: 'POST', body: { ...PRODUCT, name: `Waits ${i}` } }).finally(() => settled++),
    );
    // A few seconds, so that the waiting writes try the lock again and again meanwhile.
    const timed = await timedReads(service, productId, 2_500);
    assertAnsweredAtOnce(timed);
    if (workers > 1) assert.equal((await servedBy(service.serve, [...timed.keys()])).size, workers, 'every worker answered reads');
    assert.equal(settled, 0, 'no write was answered while the lock was held');
    await holder.release();
    for (const write of await Promise.all(writes)) {
      assert.equal(write.status, 201, write.body);
      const location = write.headers['location'];
      assert.equal((await timedRequest(`${service.url}${String(location)}`)).status, 200);
    }
    assert.equal(service.productCount(), 1 + workers);
  });

  test(`SVC_WORKERS=${workers}: a write that cannot get the lock within 5 s is 503 with Retry-After, and nothing is written`, { timeout: 60_000 }, async (t) => {
    const service = await startService(t, workers);
    const productId = await createProduct(service.url);
    const holder = await lockedBy(t, service.dbPath);
    const write = timedRequest(`${service.url}/api/products`, { method: 'POST', body: PRODUCT });
    // Readiness goes on while the write waits.
    assertAnsweredAtOnce(await timedReads(service, productId, 1_000));
    const refused = await write;
    assert.equal(refused.status, 503, refused.body);
    assert.equal(refused.headers['retry-after'], '1');
    // It did wait for the lock as long as the contract says, not a moment less (timers may fire a
    // little early on a coarse clock, hence the slack), and not much longer.
    assert.ok(refused.ms >= LOCK_WAIT_MS - 50, `refused after ${Math.round(refused.ms)} ms`);
    assert.ok(refused.ms < LOCK_WAIT_MS + 2_000, `refused after ${Math.round(refused.ms)} ms`);
    const problem = JSON.parse(refused.body) as { code: string; detail: string };
    assert.equal(problem.code, 'unavailable');
    assert.doesNotMatch(problem.detail, /locked|sqlite/i);
    // Operators learn why from the log.
    const warning = await service.serve.waitForLine((line) => line['msg'] === 'database unavailable or busy; answering 503');
    assert.match(String(warning['reason']), /locked/);
    await holder.release();
    assert.equal(service.productCount(), 1, 'the refused write created nothing');
    await createProduct(service.url);
    assert.equal(service.productCount(), 2);
  });
}

test('SQLITE_BUSY and its extended codes are recognised, other errors are not', () => {
  assert.equal(isDatabaseBusy(Object.assign(new Error('database is locked'), { errcode: 5 })), true);
  assert.equal(isDatabaseBusy(Object.assign(new Error('busy snapshot'), { errcode: 517 })), true);
  assert.equal(isDatabaseBusy(Object.assign(new Error('constraint'), { errcode: 19 })), false);
  assert.equal(isDatabaseBusy(new Error('plain')), false);
  assert.equal(isDatabaseBusy(null), false);
});

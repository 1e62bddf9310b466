import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type Config, loadConfig } from '../../src/config.ts';
import { closeDatabase, type Database } from '../../src/db/engine.ts';
import { createServiceMetrics, type ServiceMetrics } from '../../src/metrics/service-metrics.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// What startServer opens itself it must close on every path; what a caller passes in it never closes.

/** Where each of this process's open file descriptors points (a file, a socket, a pipe). */
function openDescriptors(): string[] {
  const targets: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      targets.push(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return targets.sort();
}

// The descriptors that name the SQLite file or its -wal/-shm companions (none on PostgreSQL).
const databaseFiles = (database: TestDatabase): string[] =>
  database.path === undefined ? [] : openDescriptors().filter((target) => target.startsWith(database.path as string));

// The descriptors open now that were not in `before` (a multiset difference).
function newDescriptors(before: readonly string[]): string[] {
  const left = [...before];
  return openDescriptors().filter((target) => {
    const at = left.indexOf(target);
    if (at === -1) return true;
    left.splice(at, 1);
    return false;
  });
}

// A PostgreSQL pool's end() resolves before its sockets are closed by the kernel; what leaks stays.
async function assertNoNewDescriptors(before: readonly string[], what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (newDescriptors(before).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(newDescriptors(before), [], `${what}: no descriptor beyond those open before`);
}

async function takenPort(): Promise<{ port: string; blocker: Server }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  return { port: String((blocker.address() as AddressInfo).port), blocker };
}

const configFor = (database: TestDatabase, env: Record<string, string> = {}): Config =>
  loadConfig({ SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', SVC_DB_DURABILITY: 'normal', ...database.env, ...env });

// The event-loop monitor of open metrics keeps sampling; a closed one stops.
async function stillSampling(metrics: ServiceMetrics): Promise<boolean> {
  const samples = (): number => Number(/^nodejs_eventloop_lag_seconds_count (\d+)$/m.exec(metrics.text())?.[1]);
  const before = samples();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return samples() > before;
}

// A database and metrics are usable when a server started on them serves and counts a write.
async function assertUsable(database: TestDatabase, db: Database, metrics: ServiceMetrics): Promise<void> {
  assert.ok(await stillSampling(metrics), 'the metrics were not closed');
  const running = await startServer(configFor(database), { db, metrics });
  try {
    const created = await fetch(`${running.url}/api/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Acme"}' });
    assert.equal(created.status, 201);
    await created.arrayBuffer();
    assert.match(metrics.text(), /^http_requests_total\{method="POST",route="\/api\/workspaces",status="201"\} [1-9]/m);
  } finally {
    await running.close();
  }
}

async function withDatabase(t: { after(fn: () => Promise<void>): void }): Promise<TestDatabase> {
  const database = await createTestDatabase();
  t.after(() => database.drop());
  return database;
}

// One full start and stop first, so what Node and the engine open once per process (thread pool,
// a driver's first socket setup) is not mistaken for a leak.
async function warmUp(database: TestDatabase): Promise<void> {
  await (await startServer(configFor(database))).close();
}

test('a port that is taken, three times over: each failure closes the database it opened, leaving no descriptor behind', async (t) => {
  const database = await withDatabase(t);
  const { port, blocker } = await takenPort();
  t.after(() => void blocker.close());
  await warmUp(database);
  const before = openDescriptors();
  for (let attempt = 1; attempt <= 3; attempt++) {
    await assert.rejects(startServer(configFor(database, { SVC_PORT: port })), { code: 'EADDRINUSE' });
    assert.deepEqual(databaseFiles(database), [], `attempt ${attempt}: no descriptor on the database file`);
    await assertNoNewDescriptors(before, `attempt ${attempt}`);
  }
});

test('a metrics port that is taken: the listener, the metrics and the database it opened are all released', async (t) => {
  const database = await withDatabase(t);
  const { port, blocker } = await takenPort();
  t.after(() => void blocker.close());
  await warmUp(database);
  const before = openDescriptors();
  for (let attempt = 1; attempt <= 2; attempt++) {
    await assert.rejects(startServer(configFor(database, { SVC_METRICS_PORT: port })), { code: 'EADDRINUSE' });
    assert.deepEqual(databaseFiles(database), [], `attempt ${attempt}: no descriptor on the database file`);
    await assertNoNewDescriptors(before, `attempt ${attempt} (no HTTP listener left either)`);
  }
});

test('close() closes the database and metrics it opened itself', async (t) => {
  const database = await withDatabase(t);
  await warmUp(database);
  const before = openDescriptors();
  const running: RunningServer = await startServer(configFor(database, { SVC_METRICS_PORT: '0' }));
  const metrics = running.app.metrics;
  assert.ok(metrics !== null);
  await running.close();
  assert.equal(await stillSampling(metrics), false, 'its own metrics are closed');
  assert.deepEqual(databaseFiles(database), []);
  await assertNoNewDescriptors(before, 'after close()');
});

test('a database and metrics passed in stay open and usable after each failure and after close()', async (t) => {
  const database = await withDatabase(t);
  const db = database.open();
  const metrics = createServiceMetrics();
  t.after(async () => {
    metrics.close();
    await closeDatabase(db);
  });
  const { port, blocker } = await takenPort();
  t.after(() => void blocker.close());

  await assert.rejects(startServer(configFor(database, { SVC_PORT: port }), { db, metrics }), { code: 'EADDRINUSE' });
  await assertUsable(database, db, metrics);

  await assert.rejects(startServer(configFor(database, { SVC_METRICS_PORT: port }), { db, metrics }), { code: 'EADDRINUSE' });
  await assertUsable(database, db, metrics);

  const running = await startServer(configFor(database, { SVC_METRICS_PORT: '0' }), { db, metrics });
  await running.close();
  // assertUsable itself also ended with a close(): the database and metrics outlive each server.
  await assertUsable(database, db, metrics);
});

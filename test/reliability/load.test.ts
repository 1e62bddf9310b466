import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { eventually } from '../support/assertions.ts';
import { migratedDatabaseFile } from '../support/server.ts';
import { countingPids, keepAliveLoad, serverErrors, settledDescriptors, shortConnections, steadyDescriptors, telling } from './load-run.ts';
import { spawnServer, type SpawnedServer } from './spawned-server.ts';

// The CI-sized load check; scripts/load-test.ts runs the full one (1,000 connections for 30 s,
// 5,000 short connections, two workers).

const CONNECTIONS = 200;
const SECONDS = 3;
const SHORT = 1_000;


let server: SpawnedServer;
let folder: string;
before(async () => {
  const { dir, dbPath } = migratedDatabaseFile();
  folder = dir;
  server = await spawnServer({ SVC_DB_PATH: dbPath }, dir, telling);
});
after(async () => {
  await server.kill('SIGTERM');
  rmSync(folder, { recursive: true, force: true });
});

test(`${CONNECTIONS} keep-alive connections mixing reads and creates for ${SECONDS} s: no errors, no 5xx`, async (t) => {
  const figures = await keepAliveLoad(server.url, CONNECTIONS, SECONDS * 1_000);
  t.diagnostic(JSON.stringify(figures));
  assert.deepEqual(figures.errors, []);
  assert.equal(serverErrors(figures), 0);
  assert.ok(figures.connectionsHeld >= CONNECTIONS, `only ${figures.connectionsHeld} connections were held at once`);
  assert.ok((figures.statuses['201'] ?? 0) > 0 && (figures.statuses['200'] ?? 0) > 0);
  assert.deepEqual(Object.keys(figures.statuses).filter((status) => !['200', '201', '404'].includes(status)), []);
  assert.deepEqual(server.stdout.filter(telling), []);
});

test(`${SHORT} short connections leave no file descriptors behind`, async (t) => {
  const before = await steadyDescriptors(server.pid);
  const figures = await shortConnections(server.url, SHORT, 50);
  const afterwards = await settledDescriptors(server.pid, before);
  t.diagnostic(`${figures.requests} connections; server fds before ${before}, after ${afterwards}`);
  assert.deepEqual(figures.errors, []);
  assert.equal(figures.statuses['200'], SHORT);
  assert.ok(afterwards <= before, `${afterwards - before} descriptors left behind`);
});

test('two workers: concurrent creates never surface a locked database', async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  const pids = new Set<number>();
  const counting = countingPids(pids);
  const listening = (line: string): boolean => line.includes('"msg":"worker listening"');
  const pair = await spawnServer({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2' }, dir, (line) => counting(line) || listening(line));
  try {
    // The URL is logged once the first worker listens; connections made before the second one
    // listens are all handed to the first, and keep-alive keeps them there.
    await eventually('both workers listening', async () => pair.stdout.filter(listening).length === 2, 15_000, 50);
    const figures = await keepAliveLoad(pair.url, 100, SECONDS * 1_000, 1);
    t.diagnostic(`${JSON.stringify(figures)}; answered by ${pids.size} processes`);
    assert.deepEqual(figures.errors, []);
    assert.deepEqual(figures.statuses, { 201: figures.creates });
    assert.equal(pids.size, 2, 'both workers must have taken creates');
    assert.deepEqual(pair.stdout.filter(telling), []);
    assert.doesNotMatch(pair.stderr(), /locked/i);
  } finally {
    await pair.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

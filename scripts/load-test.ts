// Load, full run: keep-alive connections mixing reads and creates, short connections and their
// file descriptors, then two workers under concurrent creates. Traffic goes to 127.0.0.1 only.
//
// Usage: npx node scripts/load-test.ts [connections=1000] [seconds=30] [short=5000] [workers=2]
// Each connection is a descriptor on both sides: when `ulimit -n` is below connections + 200,
// raise it first in the same shell (`ulimit -n 4096`); the spawned server inherits it.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { countingPids, keepAliveLoad, serverErrors, settledDescriptors, shortConnections, steadyDescriptors, telling } from '../test/reliability/load-run.ts';
import { spawnServer } from '../test/reliability/spawned-server.ts';
import { migratedDatabaseFile } from '../test/support/server.ts';

const [connections = 1_000, seconds = 30, short = 5_000, workers = 2] = process.argv.slice(2).map(Number);

function openFilesLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[3] ?? Infinity);
}

if (openFilesLimit() < connections + 200) {
  console.error(`ulimit -n is ${openFilesLimit()}; run \`ulimit -n ${connections * 2 + 200}\` first`);
  process.exit(2);
}

async function singleProcess(): Promise<void> {
  const { dir, dbPath } = migratedDatabaseFile();
  const server = await spawnServer({ SVC_DB_PATH: dbPath }, dir, telling);
  try {
    console.log(`${connections} keep-alive connections for ${seconds} s against ${server.url} (pid ${server.pid})`);
    const load = await keepAliveLoad(server.url, connections, seconds * 1_000);
    console.log(JSON.stringify(load));
    assert.deepEqual(load.errors, []);
    assert.equal(serverErrors(load), 0);
    assert.ok(load.connectionsHeld >= connections, `held only ${load.connectionsHeld} connections`);
    const before = await steadyDescriptors(server.pid);
    const brief = await shortConnections(server.url, short, 100);
    const after = await settledDescriptors(server.pid, before);
    console.log(`${brief.requests} short connections: ${JSON.stringify(brief.statuses)}; server fds before ${before}, after ${after}`);
    assert.deepEqual(brief.errors, []);
    assert.ok(after <= before, `${after - before} descriptors left behind`);
    assert.deepEqual(server.stdout.filter(telling), []);
  } finally {
    await server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function severalWorkers(): Promise<void> {
  const { dir, dbPath } = migratedDatabaseFile();
  const pids = new Set<number>();
  const server = await spawnServer({ SVC_DB_PATH: dbPath, SVC_WORKERS: String(workers) }, dir, countingPids(pids));
  try {
    const writers = Math.min(connections, 200);
    console.log(`${workers} workers: ${writers} connections creating for ${seconds} s`);
    const load = await keepAliveLoad(server.url, writers, seconds * 1_000, 1);
    console.log(`${JSON.stringify(load)}; answered by ${pids.size} processes`);
    assert.deepEqual(load.errors, []);
    assert.deepEqual(load.statuses, { 201: load.creates });
    assert.equal(pids.size, workers);
    assert.deepEqual(server.stdout.filter(telling), []);
    assert.doesNotMatch(server.stderr(), /locked/i);
  } finally {
    await server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await singleProcess();
if (workers > 1) await severalWorkers();
console.log('ok: no errors, no 5xx, no descriptors left behind, no locked database');

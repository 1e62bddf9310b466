// `npx node --expose-gc scripts/key-ids-memory.ts`: what the key check's set of key ids costs with
// 100,000 keys stored: the heap it holds (after GC, per key and in all), and the time of its first
// load (the query of every id and the building of the set, which a process does as it starts), on
// SQLite and, when PostgreSQL is installed, on a throwaway cluster. Five loads each; the median shown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiKeyRepository } from '../src/keys/repository.ts';
import { KeyIds } from '../src/keys/key-ids.ts';
import { migrate } from '../src/db/migrate.ts';
import { migratePostgres } from '../src/postgres/migrate.ts';
import { openPostgres } from '../src/postgres/open.ts';
import { createPostgresStorage } from '../src/postgres/storage.ts';
import { openDatabase } from '../src/sqlite/database.ts';
import { createSqliteStorage } from '../src/sqlite/storage.ts';
import { skipWithoutPostgres, startPostgres } from '../test/support/postgres.ts';

const KEYS = 100_000;
const RUNS = 5;
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with --expose-gc');

// Rows like real ones: 12-character ids, a 43-character digest; `n` goes 1..KEYS.
const FILL = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${KEYS})
  INSERT INTO api_keys (id, name, scopes, digest, created_at) SELECT printf('%012d', i), 'key ' || i, 'read', printf('%043d', i), '2026-11-26T00:00:00.000Z' FROM n`;
const FILL_POSTGRES = `INSERT INTO api_keys (id, name, scopes, digest, created_at)
  SELECT lpad(i::text, 12, '0'), 'key ' || i, 'read', lpad(i::text, 43, '0'), now() FROM generate_series(1, ${KEYS}) AS i`;

function heapAfterGc(): number {
  collect?.();
  collect?.();
  return process.memoryUsage().heapUsed;
}

// One first load: its time, and the heap the loaded set holds.
async function load(keys: ApiKeyRepository): Promise<{ ms: number; bytes: number; ids: KeyIds }> {
  const before = heapAfterGc();
  const startedAt = performance.now();
  const ids = new KeyIds({ idsAfter: (seq) => keys.idsAfter(seq) });
  await ids.refreshed();
  const ms = performance.now() - startedAt;
  if (ids.size !== KEYS) throw new Error(`expected ${KEYS} ids, got ${ids.size}`);
  return { ms, bytes: heapAfterGc() - before, ids };
}

async function measure(engine: string, keys: ApiKeyRepository): Promise<void> {
  const runs = [];
  // Each run's set stays alive until its heap is measured, then is let go.
  for (let i = 0; i < RUNS; i++) runs.push(await load(keys).then(({ ms, bytes }) => ({ ms, bytes })));
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const ms = median(runs.map((run) => run.ms));
  const bytes = median(runs.map((run) => run.bytes));
  console.log(`${engine.padEnd(10)} first load of ${KEYS} ids: ${ms.toFixed(0).padStart(4)} ms   heap held: ${(bytes / 1e6).toFixed(1)} MB (${(bytes / KEYS).toFixed(0)} bytes per key)`);
}

async function onSqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-key-ids-'));
  try {
    const db = openDatabase(join(dir, 'app.db'), { create: true });
    migrate(db);
    db.exec(FILL);
    await measure('SQLite', createSqliteStorage(db).keys);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onPostgres(): Promise<void> {
  const skip = skipWithoutPostgres();
  if (skip !== false) {
    console.log(`PostgreSQL skipped: ${skip}`);
    return;
  }
  const cluster = await startPostgres();
  try {
    const client = openPostgres(await cluster.createDatabase(), { poolSize: 2 });
    await migratePostgres(client);
    await client.script(`${FILL_POSTGRES}; ANALYZE api_keys`);
    await measure('PostgreSQL', createPostgresStorage(client).keys);
    await client.end();
  } finally {
    await cluster.stop();
  }
}

console.log(`Node ${process.version}, ${RUNS} runs each, median`);
await onSqlite();
await onPostgres();

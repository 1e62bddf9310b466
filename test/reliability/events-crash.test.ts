import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnServe, urlOf } from '../ops/support.ts';
import { settle, type WireEvent } from '../support/events.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { migratedDatabaseFile } from '../support/server.ts';
import { migratedDatabase } from '../postgres/support.ts';
import { whileWriting } from './milestone.ts';
import { checkSnapshot, postgresSnapshots, type SnapshotReader, sqliteSnapshots } from './outbox-snapshot.ts';
import { inDoubt, Journal, type RoundTimes, writer } from './outbox-writers.ts';

// The outbox through a crash (docs/events.md): SIGKILL during a burst of creates, PATCHes and DELETEs,
// on both engines. Then every acknowledged change has exactly one event, and every event's change
// is stored: each product's events are its created event, one updated event per version after the
// first (the last equal to the row), and a deleted event exactly when the row is gone. A request left
// in doubt by the kill (or answered 503) may have happened or not, but never by halves. Until each
// kill, the database is read again and again: every instant a kill could leave must be whole too.
const WRITERS = 8;
const KILLS = 2;
// Each kill comes this long after the round's first acknowledged write, so writes are under way.
const KILL_AFTER_FIRST_ACK_MS = [100, 500] as const;
const FIRST_ACK_WITHIN_MS = 30_000;

type Json = Record<string, unknown>;

/** What a run proved, printed on success too. */
interface Figures {
  acknowledged: number;
  inDoubt: number;
  events: number;
  rounds: RoundTimes[];
}

/** The engine under test: the server's environment, a reader of instants, and what must hold before the killed server's changes are final. */
interface Engine {
  env: Record<string, string>;
  snapshots(): SnapshotReader;
  /** Resolves once nothing the killed server began can still commit (PostgreSQL: its backends have ended). */
  killedServerGone(): Promise<void>;
}

/** Every stored product as the list shows it, with its version (its ETag, which no list shows). */
async function storedProducts(url: string): Promise<Map<number, { row: Json; version: number }>> {
  const stored = new Map<number, { row: Json; version: number }>();
  for (let next: string | undefined = '/api/products?limit=200'; next !== undefined; ) {
    const response: Response = await fetch(`${url}${next}`);
    for (const row of (await response.json()) as Json[]) {
      const tag = (await fetch(`${url}/api/products/${row['id'] as number}`)).headers.get('etag');
      stored.set(row['id'] as number, { row, version: Number(/^"(\d+)"$/.exec(tag ?? '')?.[1]) });
    }
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return stored;
}

// Every event's change is stored, and every acknowledged change has exactly one event.
function checkOutbox(events: readonly WireEvent[], stored: Map<number, { row: Json; version: number }>, journal: Journal): void {
  const byProduct = new Map<number, WireEvent[]>();
  for (const event of events.filter((e) => e.type.startsWith('product.'))) {
    byProduct.set(event.data['id'] as number, [...(byProduct.get(event.data['id'] as number) ?? []), event]);
  }
  const story = (id: number): string =>
    `\n  events: ${JSON.stringify(byProduct.get(id) ?? [])}\n  row: ${JSON.stringify(stored.get(id))}\n  acknowledged: ${JSON.stringify(journal.acked.get(id) ?? [])}\n  requests: ${journal.story(id)}`;
  for (const [id] of stored) assert.ok(byProduct.has(id), `product ${id} is stored without its events${story(id)}`);
  for (const [id, list] of byProduct) {
    const kinds = list.map((event) => event.type.split('.')[1]);
    const product = stored.get(id);
    // A stored product has one updated event per version after the first; a deleted one, whatever came between.
    const changes = product === undefined ? kinds.length - 2 : product.version - 1;
    const expected = ['created', ...Array<string>(Math.max(changes, 0)).fill('updated'), ...(product === undefined ? ['deleted'] : [])];
    assert.deepEqual(kinds, expected, `product ${id}: events ${kinds.join(',')}${story(id)}`);
    if (product !== undefined) assert.deepEqual(list.at(-1)?.data, product.row, `product ${id}: its last event shows the row${story(id)}`);
    const promised = journal.acked.get(id) ?? [];
    assert.deepEqual(kinds.slice(0, promised.length), promised, `product ${id}: every acknowledged change has its one event${story(id)}`);
  }
  for (const [id, promised] of journal.acked) assert.ok(byProduct.has(id) || promised.length === 0, `acknowledged product ${id} has no event${story(id)}`);
}

// Reads and checks the database's instants until `until` (performance.now()); how many it read.
async function readInstants(engine: Engine, until: number, journal: Journal): Promise<number> {
  const reader = engine.snapshots();
  let read = 0;
  try {
    for (; read === 0 || performance.now() < until; read++) {
      checkSnapshot(await reader.read(), (id) => `\n  requests: ${journal.story(id)}`);
      await sleep(2);
    }
  } finally {
    await reader.close();
  }
  return read;
}

// One life of the server: writers until a SIGKILL some time after its first acknowledged write. The
// kill must be what ended it, and what left requests without an answer.
async function crashRound(engine: Engine, round: number, journal: Journal): Promise<void> {
  const server = spawnServe(engine.env);
  try {
    const url = await urlOf(server);
    const { times, firstAck } = journal.beginRound();
    const writers = Array.from({ length: WRITERS }, (_, id) => writer(url, round, id, journal));
    await whileWriting(firstAck, writers, 'write acknowledged', FIRST_ACK_WITHIN_MS);
    const [least, most] = KILL_AFTER_FIRST_ACK_MS;
    times.snapshots = await readInstants(engine, performance.now() + least + Math.random() * (most - least), journal);
    assert.equal(server.child.exitCode ?? server.child.signalCode, null, `the server died by itself before the kill: ${server.stderr()}`);
    times.killed = journal.now();
    server.kill();
    times.exit = await server.exited;
    assert.equal(times.exit, 'SIGKILL', `the server ended by itself, not by the kill: ${server.stderr()}`);
    await Promise.all(writers);
    const early = journal.sent.filter((sent) => sent.round === round && typeof sent.answer !== 'number' && sent.at < (times.killed as number));
    assert.deepEqual(early, [], `requests left without an answer before the kill: ${server.stderr()}`);
  } finally {
    server.kill();
  }
  await engine.killedServerGone();
}

async function crashRounds(engine: Engine, journal: Journal): Promise<Figures> {
  for (let round = 0; round < KILLS; round++) await crashRound(engine, round, journal);
  const server: ServeProcess = spawnServe(engine.env);
  try {
    const url = await urlOf(server);
    const { events } = await settle(url, null, 'after the crashes');
    checkOutbox(events, await storedProducts(url), journal);
    assert.equal(new Set(events.map((event) => event.id)).size, events.length, 'no event twice');
    return { acknowledged: journal.acknowledged(), inDoubt: journal.sent.filter(inDoubt).length, events: events.length, rounds: journal.rounds };
  } finally {
    server.kill();
  }
}

// The run, and on failure everything needed to judge it: the rounds, the answers seen, the requests in doubt.
async function crashTest(engine: Engine): Promise<Figures> {
  const journal = new Journal();
  try {
    const figures = await crashRounds(engine, journal);
    assert.ok(figures.acknowledged > 0, 'writes were acknowledged before the kills');
    return figures;
  } catch (error) {
    // A new error, so the summary is printed (node:test prints an error's stack, made with its first message).
    throw new Error(`${(error as Error).message}\n${journal.summary()}`, { cause: error });
  }
}

test('SQLite: SIGKILL during a burst of writes; every acknowledged change has exactly one event, every event its stored change', { timeout: 180_000 }, async (t) => {
  const { dbPath } = migratedDatabaseFile();
  // A killed process holds nothing: its last commit is final once it has exited.
  const figures = await crashTest({ env: { SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'full' }, snapshots: () => sqliteSnapshots(dbPath), killedServerGone: async () => {} });
  t.diagnostic(JSON.stringify(figures));
});

describe('PostgreSQL', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster | undefined;
  after(() => cluster?.stop());
  test('SIGKILL during a burst of writes; every acknowledged change has exactly one event, every event its stored change', { timeout: 180_000 }, async (t) => {
    cluster = await startPostgres();
    const url = await migratedDatabase(cluster);
    const engine = { env: { SVC_DATABASE_URL: url }, snapshots: () => postgresSnapshots(url), killedServerGone: () => backendsEnded(cluster as PostgresCluster, new URL(url).pathname.slice(1)) };
    const figures = await crashTest(engine);
    t.diagnostic(JSON.stringify(figures));
  });
});

// A killed client's backend runs what it had already received (an autocommit INSERT commits), and
// ends only when it next reads from the closed connection: wait for that, or a write of the dead
// server could commit after the restarted one has read.
async function backendsEnded(cluster: PostgresCluster, database: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const left = Number(await cluster.sql(`SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}'`, 'postgres'));
    if (left === 0) return;
    assert.ok(performance.now() < deadline, `${left} backends of the killed server still running after 30 s`);
    await sleep(20);
  }
}

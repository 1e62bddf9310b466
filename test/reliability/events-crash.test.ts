import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnServe, urlOf } from '../ops/support.ts';
import { settle, type WireEvent } from '../support/events.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { migratedDatabaseFile } from '../support/server.ts';
import { migratedDatabase } from '../postgres/support.ts';
import { Journal, type RoundTimes, writer } from './outbox-writers.ts';

// The outbox through a crash (docs/events.md): SIGKILL during a burst of creates, PATCHes and DELETEs,
// on both engines. Then every acknowledged change has exactly one event, and every event's change
// is stored: each product's events are its created event, one updated event per version after the
// first (the last equal to the row), and a deleted event exactly when the row is gone.
const WRITERS = 8;
const KILLS = 2;

type Json = Record<string, unknown>;

/** What a run proved, printed on success too: acknowledged changes, events read, each round's times. */
interface Figures {
  acknowledged: number;
  events: number;
  rounds: RoundTimes[];
}

async function rowsById(url: string): Promise<Map<number, Json>> {
  const rows = new Map<number, Json>();
  for (let next: string | undefined = '/api/products?limit=200'; next !== undefined; ) {
    const response: Response = await fetch(`${url}${next}`);
    for (const product of (await response.json()) as Json[]) rows.set(product['id'] as number, product);
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return rows;
}

// Every event's change is stored, and every acknowledged change has exactly one event.
function checkOutbox(events: readonly WireEvent[], rows: Map<number, Json>, journal: Journal): void {
  const byProduct = new Map<number, WireEvent[]>();
  for (const event of events.filter((e) => e.type.startsWith('product.'))) {
    const list = byProduct.get(event.data['id'] as number) ?? [];
    list.push(event);
    byProduct.set(event.data['id'] as number, list);
  }
  const story = (id: number): string =>
    `\n  events: ${JSON.stringify(byProduct.get(id) ?? [])}\n  row: ${JSON.stringify(rows.get(id))}\n  acknowledged: ${JSON.stringify(journal.acked.get(id) ?? [])}\n  requests: ${journal.story(id)}`;
  for (const [id] of rows) assert.ok(byProduct.has(id), `product ${id} is stored without its events${story(id)}`);
  for (const [id, list] of byProduct) {
    const kinds = list.map((event) => event.type.split('.')[1]);
    const row = rows.get(id);
    // A writer changes a product at most once, so a stored row is at version 1 (updatedAt = createdAt) or 2.
    const changes = row === undefined ? kinds.length - 2 : row['updatedAt'] === row['createdAt'] ? 0 : 1;
    const expected = ['created', ...Array<string>(Math.max(changes, 0)).fill('updated'), ...(row === undefined ? ['deleted'] : [])];
    assert.deepEqual(kinds, expected, `product ${id}: events ${kinds.join(',')}${story(id)}`);
    if (row !== undefined) assert.deepEqual(list.at(-1)?.data, row, `product ${id}: its last event shows the row${story(id)}`);
    const promised = journal.acked.get(id) ?? [];
    assert.deepEqual(kinds.slice(0, promised.length), promised, `product ${id}: every acknowledged change has its one event${story(id)}`);
  }
  for (const [id, promised] of journal.acked) assert.ok(byProduct.has(id) || promised.length === 0, `acknowledged product ${id} has no event${story(id)}`);
}

async function crashRounds(env: Record<string, string>, journal: Journal): Promise<Figures> {
  let server: ServeProcess | null = null;
  try {
    for (let round = 0; round < KILLS; round++) {
      server = spawnServe(env);
      const url = await urlOf(server);
      const times: RoundTimes = { listening: journal.now(), firstAck: null, killed: null, exit: null };
      journal.rounds.push(times);
      const writers = Array.from({ length: WRITERS }, (_, id) => writer(url, round, id, journal));
      await sleep(200 + Math.random() * 400);
      times.killed = journal.now();
      server.kill();
      times.exit = await server.exited;
      await Promise.all(writers);
    }
    server = spawnServe(env);
    const url = await urlOf(server);
    const { events } = await settle(url, null, 'after the crashes');
    checkOutbox(events, await rowsById(url), journal);
    assert.equal(new Set(events.map((event) => event.id)).size, events.length, 'no event twice');
    return { acknowledged: journal.acknowledged(), events: events.length, rounds: journal.rounds };
  } finally {
    server?.kill();
  }
}

// The run, and on failure everything needed to judge it: the rounds, the answers seen, the requests in doubt.
async function crashTest(env: Record<string, string>): Promise<Figures> {
  const journal = new Journal();
  try {
    const figures = await crashRounds(env, journal);
    assert.ok(figures.acknowledged > 0, 'writes were acknowledged before the kills');
    return figures;
  } catch (error) {
    // A new error, so the summary is printed (node:test prints an error's stack, made with its first message).
    throw new Error(`${(error as Error).message}\n${journal.summary()}`, { cause: error });
  }
}

test('SQLite: SIGKILL during a burst of writes; every acknowledged change has exactly one event, every event its stored change', { timeout: 180_000 }, async (t) => {
  const { dbPath } = migratedDatabaseFile();
  const figures = await crashTest({ SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'full' });
  t.diagnostic(JSON.stringify(figures));
});

describe('PostgreSQL', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster | undefined;
  after(() => cluster?.stop());
  test('SIGKILL during a burst of writes; every acknowledged change has exactly one event, every event its stored change', { timeout: 180_000 }, async (t) => {
    cluster = await startPostgres();
    const figures = await crashTest({ SVC_DATABASE_URL: await migratedDatabase(cluster) });
    t.diagnostic(JSON.stringify(figures));
  });
});

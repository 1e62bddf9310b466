import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServeProcess, spawnServe, urlOf } from '../ops/support.ts';
import { settle, type WireEvent } from '../support/events.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { migratedDatabaseFile } from '../support/server.ts';
import { migratedDatabase } from '../postgres/support.ts';

// The outbox through a crash (docs/events.md): SIGKILL during a burst of creates, PATCHes and DELETEs,
// on both engines. Then every acknowledged change has exactly one event, and every event's change
// is stored: each product's events are its created event, one updated event per version after the
// first (the last equal to the row), and a deleted event exactly when the row is gone.
const WRITERS = 8;
const KILLS = 2;

type Json = Record<string, unknown>;
const headers = { 'content-type': 'application/json' };

// One writer: creates (some keyed), changes and deletes products until a request gets no answer.
async function writer(url: string, id: number, acked: Map<number, string[]>): Promise<void> {
  for (let n = 0; ; n++) {
    try {
      const keyed = n % 3 === 0 ? { 'idempotency-key': `crash-${id}-${n}-${Math.random()}` } : {};
      const created = await fetch(`${url}/api/products`, { method: 'POST', headers: { ...headers, ...keyed }, body: JSON.stringify({ name: `w${id} n${n}`, priceInCents: n }) });
      if (created.status !== 201) throw new Error(`create answered ${created.status}`);
      const product = (await created.json()) as Json;
      const pid = product['id'] as number;
      acked.set(pid, ['created']);
      const changed = await fetch(`${url}/api/products/${pid}`, { method: 'PATCH', headers, body: JSON.stringify({ priceInCents: n + 1 }) });
      if (changed.status !== 200) throw new Error(`change answered ${changed.status}`);
      acked.get(pid)?.push('updated');
      if (n % 2 === 1) {
        const deleted = await fetch(`${url}/api/products/${pid}`, { method: 'DELETE' });
        if (deleted.status !== 204) throw new Error(`delete answered ${deleted.status}`);
        acked.get(pid)?.push('deleted');
      }
    } catch (error) {
      if (/answered/.test((error as Error).message)) throw error;
      return; // the kill: this request is in doubt
    }
  }
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
function checkOutbox(events: readonly WireEvent[], rows: Map<number, Json>, acked: Map<number, string[]>): void {
  const byProduct = new Map<number, WireEvent[]>();
  for (const event of events.filter((e) => e.type.startsWith('product.'))) {
    const list = byProduct.get(event.data['id'] as number) ?? [];
    list.push(event);
    byProduct.set(event.data['id'] as number, list);
  }
  for (const [id, row] of rows) assert.ok(byProduct.has(id), `product ${id} is stored without its events`);
  for (const [id, list] of byProduct) {
    const kinds = list.map((event) => event.type.split('.')[1]);
    const row = rows.get(id);
    // A writer changes a product at most once, so a stored row is at version 1 (updatedAt = createdAt) or 2.
    const changes = row === undefined ? kinds.length - 2 : row['updatedAt'] === row['createdAt'] ? 0 : 1;
    const expected = ['created', ...Array<string>(Math.max(changes, 0)).fill('updated'), ...(row === undefined ? ['deleted'] : [])];
    assert.deepEqual(kinds, expected, `product ${id}: events ${kinds.join(',')}, row ${JSON.stringify(row)}`);
    if (row !== undefined) assert.deepEqual(list.at(-1)?.data, row, `product ${id}: its last event shows the row`);
    const promised = acked.get(id) ?? [];
    assert.deepEqual(kinds.slice(0, promised.length), promised, `product ${id}: every acknowledged change has its one event`);
  }
  for (const [id, promised] of acked) assert.ok(byProduct.has(id) || promised.length === 0, `acknowledged product ${id} has no event`);
}

async function crashRounds(env: Record<string, string>): Promise<{ acknowledged: number; events: number }> {
  const acked = new Map<number, string[]>();
  let server: ServeProcess | null = null;
  try {
    for (let round = 0; round < KILLS; round++) {
      server = spawnServe(env);
      const url = await urlOf(server);
      const writers = Array.from({ length: WRITERS }, (_, id) => writer(url, round * 100 + id, acked));
      await sleep(200 + Math.random() * 400);
      server.kill();
      await server.exited;
      await Promise.all(writers);
    }
    server = spawnServe(env);
    const url = await urlOf(server);
    const { events } = await settle(url, null, 'after the crashes');
    checkOutbox(events, await rowsById(url), acked);
    assert.equal(new Set(events.map((event) => event.id)).size, events.length, 'no event twice');
    return { acknowledged: [...acked.values()].reduce((sum, kinds) => sum + kinds.length, 0), events: events.length };
  } finally {
    server?.kill();
  }
}

test('SQLite: SIGKILL during a burst of writes; every acknowledged change has exactly one event, every event its stored change', { timeout: 180_000 }, async (t) => {
  const { dbPath } = migratedDatabaseFile();
  const figures = await crashRounds({ SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'full' });
  t.diagnostic(JSON.stringify(figures));
  assert.ok(figures.acknowledged > 0, 'writes were acknowledged before the kills');
});

describe('PostgreSQL', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster | undefined;
  after(() => cluster?.stop());
  test('SIGKILL during a burst of writes; every acknowledged change has exactly one event, every event its stored change', { timeout: 180_000 }, async (t) => {
    cluster = await startPostgres();
    const figures = await crashRounds({ SVC_DATABASE_URL: await migratedDatabase(cluster) });
    t.diagnostic(JSON.stringify(figures));
    assert.ok(figures.acknowledged > 0, 'writes were acknowledged before the kills');
  });
});

// The outbox crash test's look at the database while its server writes: every instant is one a
// SIGKILL could leave behind, so every committed state must already be whole, each change with its
// event. Reading many instants catches a change and its event committed apart on every run, where a
// few kills land in the gap between them only now and then.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { openPostgres } from '../../src/postgres/open.ts';
import { products } from '../../src/products/resource.ts';

/** The stored products and their events at one instant. */
export interface Snapshot {
  /** Each stored product's version. */
  versions: Map<number, number>;
  /** Each product's events counted by type: created, updated, deleted. */
  events: Map<number, [number, number, number]>;
}

/** Reads snapshots of one database while a server writes to it. */
export interface SnapshotReader {
  read(): Promise<Snapshot>;
  close(): Promise<void>;
}

// The stored numbers of the sample resource's event types.
const { created: CREATED, updated: UPDATED, deleted: DELETED } = products.events;
const PRODUCT_EVENTS = [CREATED, UPDATED, DELETED] as const;

// One statement, so one snapshot on either engine: each product's id and version, then each product
// event's type and data (the row as a JSON array, its id first).
const SNAPSHOT =
  'SELECT 0 AS type, id, version, CAST(NULL AS TEXT) AS data FROM products UNION ALL ' +
  `SELECT type, CAST(NULL AS BIGINT), CAST(NULL AS INTEGER), data FROM events WHERE type IN (${PRODUCT_EVENTS.join(', ')})`;

function snapshotOf(rows: readonly (readonly unknown[])[]): Snapshot {
  const snapshot: Snapshot = { versions: new Map(), events: new Map() };
  for (const [type, id, version, data] of rows) {
    if (Number(type) === 0) {
      snapshot.versions.set(Number(id), Number(version));
      continue;
    }
    const product = Number((JSON.parse(String(data)) as unknown[])[0]);
    const [created, updated, deleted] = snapshot.events.get(product) ?? [0, 0, 0];
    const kind = Number(type);
    const counted = (of: number): number => (kind === of ? 1 : 0);
    snapshot.events.set(product, [created + counted(CREATED), updated + counted(UPDATED), deleted + counted(DELETED)]);
  }
  return snapshot;
}

/** Snapshots of a SQLite file, through a read-only connection of its own (WAL: it never blocks the writer). */
export function sqliteSnapshots(dbPath: string): SnapshotReader {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  db.exec('PRAGMA busy_timeout = 5000');
  const statement = db.prepare(SNAPSHOT);
  statement.setReturnArrays(true);
  return { read: async () => snapshotOf(statement.all() as unknown as unknown[][]), close: async () => db.close() };
}

/** Snapshots of a PostgreSQL database, on one connection of its own. */
export function postgresSnapshots(url: string): SnapshotReader {
  const client = openPostgres(url, { poolSize: 1 });
  return { read: async () => snapshotOf(await client.rows(SNAPSHOT, [])), close: () => client.end() };
}

/**
 * Whole at this instant: a stored product has its created event, one updated event per version after
 * the first, and no deleted event; a product with events and no row has its created and deleted ones.
 */
export function checkSnapshot(snapshot: Snapshot, story: (id: number) => string): void {
  for (const [id, version] of snapshot.versions) {
    const counts = snapshot.events.get(id) ?? [0, 0, 0];
    assert.deepEqual(counts, [1, version - 1, 0], `an instant: product ${id} stored at version ${version} with events (created, updated, deleted) ${counts.join(', ')}${story(id)}`);
  }
  for (const [id, [created, , deleted]] of snapshot.events) {
    if (!snapshot.versions.has(id)) assert.deepEqual([created, deleted], [1, 1], `an instant: product ${id} gone with ${created} created and ${deleted} deleted events${story(id)}`);
  }
}

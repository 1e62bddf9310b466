import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_POSTGRES_SQL_DIR } from '../../src/db/migrate.ts';
import { createPostgresEventRepository } from '../../src/postgres/events.ts';
import { migratePostgres } from '../../src/postgres/migrate.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { waitUntil } from './support.ts';

// Migration 006 gives the events that exist their positions in the order the feed showed them before,
// (tx, seq), so a follower's stored id goes on with the same events after the upgrade: no gap, no
// repeat. Events are written as version 5 wrote them, by transactions whose ids and numbers disagree
// (the older transaction records its event last); retention had deleted some.
const YEAR_MS = 365 * 24 * 3600 * 1000;

describe('migration 006 on events written before it', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let before5: string;
  before(async () => {
    cluster = await startPostgres();
    before5 = mkdtempSync(join(tmpdir(), 'svc-sql-'));
    for (const file of readdirSync(DEFAULT_POSTGRES_SQL_DIR).filter((name) => name < '006')) cpSync(join(DEFAULT_POSTGRES_SQL_DIR, file), join(before5, file));
  });
  after(async () => {
    rmSync(before5, { recursive: true, force: true });
    await cluster?.stop();
  });

  test('existing events keep the feed\'s order; stored ids (kept, the newest deleted, deleted) mean what they meant', async () => {
    const url = await cluster.createDatabase();
    const db = openPostgres(url, { poolSize: 4 });
    try {
      await migratePostgres(db, before5);
      const record = (name: string): string =>
        `INSERT INTO events (type, created_at, data) VALUES (4, now(), '[1, "${name}", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", 1]') RETURNING tx::text || '_' || seq`;
      // Transaction A takes its id first and records its event last; B and C in between.
      const recorded: Record<string, string> = {};
      await db.transaction(async (a) => {
        await a.rows('SELECT pg_current_xact_id()');
        for (const name of ['B', 'C']) recorded[name] = String((await db.rows(record(name)))[0]?.[0]);
        recorded['A'] = String((await a.rows(record('A')))[0]?.[0]);
      });
      for (const name of ['D', 'E', 'F']) recorded[name] = String((await db.rows(record(name)))[0]?.[0]);
      const oldOrder = (await db.rows("SELECT tx::text || '_' || seq FROM events ORDER BY tx, seq")).map((row) => String(row[0]));
      assert.deepEqual(oldOrder.slice(0, 3), [recorded['A'], recorded['B'], recorded['C']], 'the old order is not the order of numbers');
      // Retention of version 5 deleted the oldest two (A, B) and remembered B.
      const [tx, seq] = String(recorded['B']).split('_');
      await db.run(`DELETE FROM events WHERE (tx::text || '_' || seq) IN ($1, $2)`, [recorded['A'], recorded['B']]);
      await db.run(`INSERT INTO events_horizon (id, tx, seq) VALUES (1, '${tx}', ${seq})`);

      await migratePostgres(db);
      const events = createPostgresEventRepository(db, YEAR_MS);
      const ids = async (after: string | null): Promise<unknown> => {
        const read = await events.readAfter(after, 200, null);
        return read.kind === 'events' ? read.events.map((event) => event.id) : read.kind;
      };
      assert.deepEqual(await ids(null), oldOrder.slice(2), 'the feed shows the kept events in the old order');
      assert.deepEqual(await ids(recorded['C'] ?? ''), oldOrder.slice(3), 'a stored id goes on with the events after it');
      assert.deepEqual(await ids(recorded['B'] ?? ''), oldOrder.slice(2), 'the newest deleted event is still a place to stand');
      assert.equal(await ids(recorded['A'] ?? ''), 'expired', 'an event deleted before the migration is 410');
      assert.equal(await events.head(), oldOrder.at(-1));
      // A new event shows once the sequencer gave it a position; until then its id is a place with nothing after it yet.
      const later = String((await db.rows(record('G')))[0]?.[0]);
      assert.deepEqual(await ids(recorded['F'] ?? ''), [], 'not before it has a position');
      assert.deepEqual(await ids(later), [], 'an id of an event still without a position: nothing after it yet (not 400)');
      db.sequencer?.start();
      await waitUntil('the sequencer positions the new event', async () => JSON.stringify(await ids(recorded['F'] ?? '')) === JSON.stringify([later]));
    } finally {
      await db.end();
    }
  });
});

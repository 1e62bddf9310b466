import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { startDeliveryRetention } from '../../src/webhooks/retention.ts';

const HOUR = 3_600_000;
const OLD = new Date(Date.now() - 2 * HOUR).toISOString();
const NEW = new Date().toISOString();

// A webhook (status 1 enabled, 2 disabled; deleted or not) with deliveries of the given statuses, their events recorded at `at`.
function webhookWith(db: DatabaseSync, hook: { status: 1 | 2; deleted?: boolean }, deliveries: { status: 1 | 2 | 3; at: string; count: number }[]): number {
  const { lastInsertRowid } = db
    .prepare("INSERT INTO webhooks (url, status, secret, created_at, updated_at, deleted) VALUES ('https://hooks.example.com/', ?, 's', ?, ?, ?)")
    .run(hook.status, NEW, NEW, hook.deleted === true ? 1 : 0);
  const id = Number(lastInsertRowid);
  const insert = db.prepare("INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, status, next_attempt_at) VALUES (?, ?, 1, ?, '[]', ?, ?)");
  let n = 0;
  for (const { status, at, count } of deliveries) for (let i = 0; i < count; i++) insert.run(id, `e${++n}`, at, status, status === 1 ? Date.now() + HOUR : null);
  return id;
}

const statuses = (db: DatabaseSync, id: number): number[] =>
  (db.prepare('SELECT status FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq').all(id) as { status: number }[]).map((row) => row.status);

test('one sweep: a deleted webhook\'s log and row go, ended deliveries of expired events go, a disabled webhook\'s pending ones fail and go; the rest stays', async () => {
  const db = openDatabase(':memory:');
  migrate(db);
  const enabled = webhookWith(db, { status: 1 }, [{ status: 2, at: OLD, count: 23 }, { status: 3, at: OLD, count: 4 }, { status: 1, at: OLD, count: 3 }, { status: 2, at: NEW, count: 2 }]);
  const disabled = webhookWith(db, { status: 2 }, [{ status: 1, at: OLD, count: 12 }, { status: 1, at: NEW, count: 1 }]);
  const deleted = webhookWith(db, { status: 2, deleted: true }, [{ status: 2, at: NEW, count: 31 }]);
  const retention = startDeliveryRetention(createSqliteStorage(db), HOUR, { intervalMs: HOUR, stepRows: 10 });
  try {
    // 31 of the deleted webhook's log, 12 failed, then 27 + 12 deleted: each kind in steps of 10.
    assert.equal(await retention.sweep(), 31 + 12 + 39);
    assert.deepEqual(statuses(db, enabled), [1, 1, 1, 2, 2], 'pending ones outlive their event; ended ones of kept events stay');
    assert.deepEqual(statuses(db, disabled), [1], 'a disabled webhook\'s pending delivery of a kept event stays pending');
    assert.equal(Number((db.prepare('SELECT count(*) AS n FROM webhooks WHERE id = ?').get(deleted) as { n: number }).n), 0);
    assert.equal(await retention.sweep(), 0);
  } finally {
    await retention.stop();
    db.close();
  }
});

test('a sweep takes at most maxSteps steps; wake() sweeps again until the work is done', async () => {
  const db = openDatabase(':memory:');
  migrate(db);
  const deleted = webhookWith(db, { status: 2, deleted: true }, [{ status: 2, at: NEW, count: 95 }]);
  const retention = startDeliveryRetention(createSqliteStorage(db), HOUR, { intervalMs: HOUR, stepRows: 10, maxSteps: 3 });
  try {
    assert.equal(await retention.sweep(), 30);
    retention.wake();
    const deadline = Date.now() + 5_000;
    while ((db.prepare('SELECT count(*) AS n FROM webhooks WHERE id = ?').get(deleted) as { n: number }).n > 0) {
      assert.ok(Date.now() < deadline, 'wake() worked the log off');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(statuses(db, deleted), []);
  } finally {
    await retention.stop();
    db.close();
  }
});

import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import type { Storage } from '../../src/db/storage.ts';
import { eventCatalogue } from '../../src/events/catalogue.ts';
import { createLogger } from '../../src/log/logger.ts';
import { RESOURCES, VERSIONS } from '../../src/registry.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { buildVersions } from '../../src/versions/api-versions.ts';
import { type Deliverer, startDeliverer } from '../../src/webhooks/deliverer.ts';
import type { DueDelivery } from '../../src/webhooks/model.ts';
import type { DueQuery } from '../../src/webhooks/repository.ts';
import { parseWebhookSettings } from '../../src/webhooks/settings.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';

// When the deliverer claims again at once, and when it waits for an attempt's end, a commit or the
// poll (here a minute, so only the claims themselves count): on real SQLite storage, to a real receiver.

interface Setup {
  db: DatabaseSync;
  receiver: Receiver;
  deliverer: Deliverer;
  /** The claims' reads so far. */
  reads: DueQuery[];
  close(): Promise<void>;
}

/**
 * A webhook (its last attempt failed: false, or null for none yet) with `count` due deliveries, a
 * receiver that never answers, and a deliverer; `afterRead` runs after each claim's read, given what it found.
 */
async function setUp(count: number, lastFailed: 0 | null, afterRead: (due: DueDelivery[], db: DatabaseSync) => void = () => {}): Promise<Setup> {
  const db = openDatabase(':memory:');
  migrate(db);
  const receiver = await startReceiver();
  receiver.answer = () => 'hang';
  const at = new Date().toISOString();
  db.prepare("INSERT INTO webhooks (url, status, secret, created_at, updated_at, last_attempt_failed) VALUES (?, 1, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ?, ?, ?)").run(receiver.url, at, at, lastFailed);
  const insert = db.prepare("INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at) VALUES (1, ?, 1, ?, ?, ?)");
  for (let i = 1; i <= count; i++) insert.run(String(i), at, JSON.stringify([i, `p${i}`, 100, 'EUR', 1, at, at, 1]), Date.now() - 1_000 + i);
  const storage = createSqliteStorage(db, { resources: RESOURCES });
  const reads: DueQuery[] = [];
  const counted: Storage = {
    ...storage,
    webhookDeliveries: {
      ...storage.webhookDeliveries,
      async dueByWebhook(query) {
        reads.push(query);
        const due = await storage.webhookDeliveries.dueByWebhook(query);
        afterRead(due, db);
        return due;
      },
    },
  };
  const deliverer = startDeliverer({
    storage: counted, catalogue: eventCatalogue(RESOURCES), versions: buildVersions(VERSIONS, RESOURCES, { at: new Map(), announcedAt: 0 }),
    settings: parseWebhookSettings({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }), logger: createLogger('silent'), pollMs: 60_000,
  });
  return {
    db, receiver, deliverer, reads,
    async close() {
      await deliverer.stop(0);
      await receiver.close();
      db.close();
    },
  };
}

test('a claim that leaves nothing more to take reads once: a webhook never attempted gets its one attempt, and no second read finds it at its limit', async () => {
  const setup = await setUp(3, null);
  try {
    await setup.receiver.waitFor(1);
    assert.equal(setup.reads.length, 1);
    assert.deepEqual(setup.receiver.ids(), ['1']);
  } finally {
    await setup.close();
  }
});

test('a claim of which another process took some claims again at once: the webhook gets its 4 attempts without waiting for the poll', async () => {
  let stolen = false;
  // Another connection leases the first delivery read, between the read and the claim's write.
  const setup = await setUp(6, 0, (due, db) => {
    if (stolen || due.length === 0) return;
    stolen = true;
    db.prepare('UPDATE webhook_deliveries SET claimed_until = ?, claim_token = 9 WHERE seq = ?').run(Date.now() + 60_000, (due[0] as DueDelivery).seq);
  });
  try {
    await setup.receiver.waitFor(4, 5_000);
    assert.deepEqual(setup.receiver.ids().sort(), ['2', '3', '4', '5']);
    assert.equal(setup.reads.length, 2);
  } finally {
    await setup.close();
  }
});

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
import { startDeliverer } from '../../src/webhooks/deliverer.ts';
import type { DueDelivery } from '../../src/webhooks/model.ts';
import { parseWebhookSettings } from '../../src/webhooks/settings.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';

// When the deliverer claims, and what: on real SQLite storage, to a real receiver, the storage's calls
// counted. The poll is a minute unless a test says otherwise, so only the claims themselves count.

interface Setup {
  db: DatabaseSync;
  receiver: Receiver;
  /** What each claim read (the pick's input), in order. */
  reads: (readonly DueDelivery[])[];
  /** Write transactions begun, and reads of whether anything is due (an idle poll makes one). */
  counts: { transactions: number; dueChecks: number };
  close(): Promise<void>;
}

interface Options {
  /** Deliveries due, of one webhook. */
  count: number;
  /** The webhook's last attempt failed: 0 (no) or null (none recorded yet). */
  lastFailed: 0 | null;
  pollMs?: number;
  /** Runs in the claim's transaction, given what the claim read, before the pick. */
  afterRead?: (due: readonly DueDelivery[], db: DatabaseSync) => void;
}

// The storage, its calls counted, and afterRead run inside each claim.
function counted(storage: Storage, setup: Pick<Setup, 'reads' | 'counts'>, afterRead: (due: readonly DueDelivery[]) => void): Storage {
  return {
    ...storage,
    webhookDeliveries: new Proxy(storage.webhookDeliveries, {
      get: (target, key) => (key === 'nextDue' ? (now: number) => (setup.counts.dueChecks++, target.nextDue(now)) : Reflect.get(target, key)),
    }),
    transaction: (work) => {
      setup.counts.transactions++;
      return storage.transaction((tx) => {
        const claim: typeof tx.webhookDeliveries.claim = (request, pick) =>
          tx.webhookDeliveries.claim(request, (due) => {
            setup.reads.push(due);
            afterRead(due);
            return pick(due);
          });
        const deliveries = new Proxy(tx.webhookDeliveries, { get: (target, key) => (key === 'claim' ? claim : Reflect.get(target, key)) });
        return work(new Proxy(tx, { get: (target, key) => (key === 'webhookDeliveries' ? deliveries : Reflect.get(target, key)) }));
      });
    },
  };
}

/** A webhook with `count` due deliveries (event ids 1, 2, …), a receiver that never answers unless told, and a deliverer. */
async function setUp(options: Options): Promise<Setup> {
  const db = openDatabase(':memory:');
  migrate(db);
  const receiver = await startReceiver();
  receiver.answer = () => 'hang';
  const at = new Date().toISOString();
  db.prepare("INSERT INTO webhooks (url, status, secret, created_at, updated_at, last_attempt_failed) VALUES (?, 1, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ?, ?, ?)").run(receiver.url, at, at, options.lastFailed);
  const insert = db.prepare('INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at) VALUES (1, ?, 1, ?, ?, ?)');
  for (let i = 1; i <= options.count; i++) insert.run(String(i), at, JSON.stringify([i, `p${i}`, 100, 'EUR', 1, at, at, 1]), Date.now() - 1_000 + i);
  const setup = { reads: [] as (readonly DueDelivery[])[], counts: { transactions: 0, dueChecks: 0 } };
  const storage = counted(createSqliteStorage(db, { resources: RESOURCES }), setup, (due) => options.afterRead?.(due, db));
  const deliverer = startDeliverer({
    storage, catalogue: eventCatalogue(RESOURCES), versions: buildVersions(VERSIONS, RESOURCES, { at: new Map(), announcedAt: 0 }),
    settings: parseWebhookSettings({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }), logger: createLogger('silent'), pollMs: options.pollMs ?? 60_000,
  });
  return {
    db, receiver, ...setup,
    async close() {
      await deliverer.stop(0);
      await receiver.close();
      db.close();
    },
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !condition(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    assert.ok(Date.now() < deadline, `waited 5 s for ${what}`);
  }
}

const seqs = (due: readonly DueDelivery[]): number[] => due.map((delivery) => delivery.seq);

test('a claim that leaves nothing more to take reads once: a webhook never attempted gets its one attempt, and no second read finds it at its limit', async () => {
  const setup = await setUp({ count: 3, lastFailed: null });
  try {
    await setup.receiver.waitFor(1);
    assert.deepEqual(setup.reads.map(seqs), [[1]], 'one read, of the one delivery its room allows');
    assert.deepEqual(setup.receiver.ids(), ['1']);
  } finally {
    await setup.close();
  }
});

test('a claim reads no more of a webhook than its room: after one of 4 attempts ends, the next claim reads one delivery', async () => {
  const setup = await setUp({ count: 8, lastFailed: 0 });
  setup.receiver.answer = (_request, index) => (index === 0 ? { status: 204 } : 'hang');
  try {
    await setup.receiver.waitFor(5);
    assert.deepEqual(setup.reads.map(seqs), [[1, 2, 3, 4], [5]]);
  } finally {
    await setup.close();
  }
});

test('a claim of which another process took some claims again at once: the webhook gets its 4 attempts without waiting for the poll', async () => {
  let stolen = false;
  // The first delivery read is leased by another claim between the read and the take (on PostgreSQL
  // another node may; on SQLite the claim's transaction holds the write lock, so here it is its own).
  const setup = await setUp({
    count: 6, lastFailed: 0,
    afterRead(due, db) {
      if (stolen || due.length === 0) return;
      stolen = true;
      db.prepare('UPDATE webhook_deliveries SET claimed_until = ?, claim_token = 9 WHERE seq = ?').run(Date.now() + 60_000, (due[0] as DueDelivery).seq);
    },
  });
  try {
    await setup.receiver.waitFor(4, 5_000);
    assert.deepEqual(setup.receiver.ids().sort(), ['2', '3', '4', '5']);
    assert.deepEqual(setup.reads.map(seqs), [[1, 2, 3, 4], [5]]);
  } finally {
    await setup.close();
  }
});

test('once nothing is left due, each poll only reads whether anything is: no write transaction', async () => {
  const setup = await setUp({ count: 6, lastFailed: 0, pollMs: 20 });
  setup.receiver.answer = () => ({ status: 204 });
  try {
    await setup.receiver.waitFor(6);
    await until(() => Number(setup.db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE status = 2').get()?.['n']) === 6, 'all six recorded');
    const { transactions, dueChecks } = setup.counts;
    await until(() => setup.counts.dueChecks >= dueChecks + 5, 'five polls');
    assert.equal(setup.counts.transactions, transactions, 'polls that find nothing due write nothing');
  } finally {
    await setup.close();
  }
});

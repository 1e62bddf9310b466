import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeDatabase, createStorage } from '../../src/db/engine.ts';
import type { Storage } from '../../src/db/storage.ts';
import { eventCatalogue } from '../../src/events/catalogue.ts';
import { createLogger } from '../../src/log/logger.ts';
import { RESOURCES, VERSIONS } from '../../src/registry.ts';
import { buildVersions } from '../../src/versions/api-versions.ts';
import { type Deliverer, startDeliverer } from '../../src/webhooks/deliverer.ts';
import { parseWebhookSettings } from '../../src/webhooks/settings.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { webhookRow } from '../support/webhook-rows.ts';

// What a deliverer reads when a commit of its process may have made deliveries (committed(): every
// commit on PostgreSQL, whose fan-out is a trigger): nothing while its last look found no webhook
// enabled, since then no delivery was made; a look at once after a webhook was written here (wake()),
// or once a look found one enabled. On the run's engine; the poll is a minute, so only the nudges count.

async function setUp(duringLook: (deliverer: Deliverer, looks: number) => void = () => {}) {
  const database = await createTestDatabase();
  const db = database.open();
  const storage = createStorage(db);
  let looks = 0;
  let deliverer: Deliverer | undefined;
  const counted: Storage = {
    ...storage,
    webhookDeliveries: new Proxy(storage.webhookDeliveries, {
      get: (target, key) =>
        key === 'nextDue'
          ? (now: number) => {
              const read = target.nextDue(now);
              looks++;
              if (deliverer !== undefined) duringLook(deliverer, looks);
              return read;
            }
          : Reflect.get(target, key),
    }),
  };
  deliverer = startDeliverer({
    storage: counted, catalogue: eventCatalogue(RESOURCES), versions: buildVersions(VERSIONS, RESOURCES, { at: new Map(), announcedAt: 0 }),
    settings: parseWebhookSettings({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }), logger: createLogger('silent'), pollMs: 60_000,
  });
  const settled = () => new Promise((resolve) => setTimeout(resolve, 100));
  await settled();
  return {
    deliverer,
    looks: () => looks,
    settled,
    async enableWebhook() {
      await storage.webhooks.insert(webhookRow());
    },
    async close() {
      await deliverer.stop(0);
      await closeDatabase(db);
      await database.drop();
    },
  };
}

test('with no webhook enabled, a commit costs the deliverer no read; a webhook written here, or found enabled, makes commits read again', async () => {
  const setup = await setUp();
  try {
    assert.equal(setup.looks(), 1, 'the first look, at start');
    for (let i = 0; i < 3; i++) setup.deliverer.committed();
    await setup.settled();
    assert.equal(setup.looks(), 1, 'no webhook enabled: a commit made no delivery');

    // Enabled by another process: unknown here until the next poll, which would find its deliveries.
    await setup.enableWebhook();
    setup.deliverer.committed();
    await setup.settled();
    assert.equal(setup.looks(), 1);

    // This process wrote a webhook (its routes wake the deliverer): a look, which finds it enabled.
    setup.deliverer.wake();
    await setup.settled();
    assert.equal(setup.looks(), 2);
    setup.deliverer.committed();
    await setup.settled();
    assert.equal(setup.looks(), 3, 'a webhook enabled: each commit looks');
  } finally {
    await setup.close();
  }
});

/** The looks made, with no webhook enabled, after one wake whose look (the 2nd) and those after it meet `duringLook`. */
async function looksAfterAWake(duringLook: (deliverer: Deliverer, looks: number) => void): Promise<number> {
  const setup = await setUp(duringLook);
  try {
    setup.deliverer.wake();
    await setup.settled();
    return setup.looks();
  } finally {
    await setup.close();
  }
}

test('a look overtaken by a webhook written here does not silence commits until the next look has ended', async () => {
  // The wake's look (2nd) is overtaken by another wake, as by a webhook created meanwhile; the look
  // that follows it at once (3rd) is still running when a commit comes: that commit must be looked for.
  const looks = await looksAfterAWake((deliverer, looks) => {
    if (looks === 2) deliverer.wake();
    if (looks === 3) deliverer.committed();
  });
  assert.equal(looks, 4, 'the commit during the 3rd look made a 4th');
});

test('a commit while the look of a wake runs is looked for after it: the wake forgets that none was enabled', async () => {
  const looks = await looksAfterAWake((deliverer, looks) => {
    if (looks === 2) deliverer.committed();
  });
  assert.equal(looks, 3, 'the wake, then the commit made during its look');
});

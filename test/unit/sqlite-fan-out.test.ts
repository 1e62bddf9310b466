import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import type { Storage } from '../../src/db/storage.ts';
import { openDatabase } from '../../src/sqlite/database.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { type Webhook, WebhookStatus } from '../../src/webhooks/model.ts';
import { NEWEST_VERSION, RESOURCES, repository, toNewest, validBody } from '../support/resources.ts';

// SQLite skips the webhook fan-out in a write transaction that read, under its write lock, that no
// webhook is enabled (src/sqlite/webhook-fan-out.ts). What must still hold: an event recorded after a
// webhook is enabled gets its delivery, whether that webhook was written earlier in the same
// transaction or committed by another connection (another worker process) between two transactions.

const [SAMPLE] = RESOURCES;
if (SAMPLE === undefined) throw new Error('no resource');
const AT = '2026-11-28T09:30:00.000Z';
const WEBHOOK: Omit<Webhook, 'id' | 'version'> = {
  url: 'https://receiver.example/hook', eventTypes: null, status: WebhookStatus.enabled, secret: `whsec_${'A'.repeat(43)}=`,
  previousSecret: null, previousSecretUntil: null, createdAt: AT, updatedAt: AT, apiVersion: NEWEST_VERSION.id,
};

let dir: string;
let first: DatabaseSync;
let second: DatabaseSync;
let ours: Storage;
let theirs: Storage;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-fan-out-'));
  const path = join(dir, 'app.db');
  const setup = openDatabase(path, { create: true });
  migrate(setup);
  setup.close();
  [first, second] = [openDatabase(path), openDatabase(path)];
  [ours, theirs] = [createSqliteStorage(first, { resources: RESOURCES }), createSqliteStorage(second, { resources: RESOURCES })];
});
after(() => {
  first.close();
  second.close();
  rmSync(dir, { recursive: true, force: true });
});

const deliveries = (): number => Number(first.prepare('SELECT count(*) AS n FROM webhook_deliveries').get()?.['n']);
const row = (n: number) => ({ ...toNewest(SAMPLE, validBody(SAMPLE, n)), createdAt: AT, updatedAt: AT });
const create = (storage: Storage, n: number): Promise<unknown> => storage.transaction((tx) => repository(tx, SAMPLE).insert(row(n)));

test('with no webhook enabled, events get no delivery', async () => {
  await create(ours, 0);
  assert.equal(deliveries(), 0);
});

test('a webhook written earlier in the same transaction gets the events recorded after it', async () => {
  await ours.transaction(async (tx) => {
    await repository(tx, SAMPLE).insert(row(1));
    await tx.webhooks.insert({ ...WEBHOOK });
    await repository(tx, SAMPLE).insert(row(2));
  });
  assert.equal(deliveries(), 1, 'the event before the webhook has none, the one after it has one');
});

test('a webhook enabled by another connection between two transactions gets the next event', async () => {
  // A connection of its own, whose transactions have only ever seen no webhook enabled.
  const third = openDatabase(join(dir, 'app.db'));
  const fresh = createSqliteStorage(third, { resources: RESOURCES });
  try {
    const [stored] = (await theirs.webhooks.listBefore(null, 1)) as Webhook[];
    assert.ok(stored !== undefined);
    await theirs.transaction((tx) => tx.webhooks.update({ ...stored, status: WebhookStatus.disabled, version: stored.version + 1 }));
    await create(fresh, 3);
    assert.equal(deliveries(), 1, 'disabled: no delivery');
    await theirs.transaction((tx) => tx.webhooks.update({ ...stored, status: WebhookStatus.enabled, version: stored.version + 2 }));
    await create(fresh, 4);
    assert.equal(deliveries(), 2, 'enabled again elsewhere: the next event here has its delivery');
  } finally {
    third.close();
  }
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { migrate } from '../../src/db/migrate.ts';
import { startServer } from '../../src/server.ts';
import { feedBytesOf } from '../support/feed-bytes.ts';
import { migrateBefore } from '../support/migrate-before.ts';
import { capturingLogger, patchJson, postJson } from '../support/server.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { type Received, startReceiver, verifyDelivery } from '../support/webhook-receiver.ts';

// Webhooks stored before versions existed (as migration 010 finds them: no api_version) pin the first
// version, 2026-11-21, so their receivers get exactly the bytes they got before, and keep the entity tag
// they had. On the run's engine (the PostgreSQL pass runs it too).
const [FIRST, LISTS, NEWEST] = ['2026-11-21', '2026-11-28', '2026-12-05'];

test('webhooks made before migration 010 pin 2026-11-21: their deliveries are made in it, with Api-Version; a PATCH moves them on', async () => {
  const database = await createTestDatabase({ migrated: false });
  const receiver = await startReceiver();
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let db = database.open();
  try {
    await migrateBefore(db, '010');
  } finally {
    await closeDatabase(db);
  }
  // The columns of migration 005, as the service of the version before inserted them.
  await database.sql(`INSERT INTO webhooks (url, event_mask, status, secret, created_at, updated_at)
    VALUES ('${receiver.url}', NULL, 1, '${secret}', '2026-11-20T09:30:00.000Z', '2026-11-20T09:30:00.000Z')`);
  db = database.open();
  try {
    await migrate(db);
  } finally {
    await closeDatabase(db);
  }
  const config = loadConfig({ SVC_PORT: '0', SVC_DB_DURABILITY: 'normal', SVC_WEBHOOK_ALLOW_PRIVATE: 'true', ...database.env });
  const server = await startServer(config, { logger: capturingLogger(config, []) });
  try {
    const [row] = await database.sql('SELECT id FROM webhooks');
    const path = `${server.url}/api/webhooks/${Number(row?.[0])}`;
    const first = await fetch(path);
    assert.deepEqual([first.headers.get('etag'), Object.hasOwn((await first.json()) as object, 'apiVersion')], ['"1"', false]);
    const later = await fetch(path, { headers: { 'api-version': LISTS } });
    assert.deepEqual([later.headers.get('etag'), ((await later.json()) as { apiVersion: string }).apiVersion], ['"1.1"', FIRST]);
    // An event now: delivered as the version before delivered it.
    assert.equal((await postJson(`${server.url}/api/products`, { name: 'lamp', priceInCents: 1999 })).status, 201);
    const [old] = (await receiver.waitFor(1)) as [Received];
    verifyDelivery(secret, old);
    assert.equal(old.headers['api-version'], FIRST);
    assert.equal(old.body, await feedBytesOf(server.url, String(old.headers['webhook-id']), FIRST));
    const moved = await patchJson(path, { apiVersion: NEWEST }, { 'api-version': LISTS, 'if-match': '"1.1"' });
    assert.deepEqual([moved.status, moved.headers.get('etag')], [200, '"2.1"']);
    assert.equal((await postJson(`${server.url}/api/products`, { name: 'desk', priceInCents: 2999 })).status, 201);
    const [, next] = (await receiver.waitFor(2)) as [Received, Received];
    assert.equal(next.headers['api-version'], NEWEST);
    assert.equal(next.body, await feedBytesOf(server.url, String(next.headers['webhook-id']), NEWEST));
  } finally {
    await server.close();
    await receiver.close();
    await database.drop();
  }
});

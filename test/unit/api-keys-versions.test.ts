import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiKeyValidationError, createApiKey, getApiKey, listApiKeys } from '../../src/api-keys.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, type Database } from '../../src/db/engine.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// createApiKey (the embedding API, and bin/keys.js) pins a key to a version: the one asked for, a version
// served under the settings given; else SVC_API_VERSION of those settings; else the first version.
let database: TestDatabase;
let db: Database;
before(async () => {
  database = await createTestDatabase({ engine: 'sqlite' });
  db = database.open();
});
after(async () => {
  await closeDatabase(db);
  await database.drop();
});

test('a key pins the version asked for, else the settings\' SVC_API_VERSION, else the first; every view shows it', async () => {
  const asked = await createApiKey(db, { name: 'asked', scopes: ['read'], apiVersion: '2026-12-05' });
  const first = await createApiKey(db, { name: 'first', scopes: ['read'] });
  const settings = loadConfig({ SVC_API_VERSION: '2026-11-28' }).versions;
  const configured = await createApiKey(db, { name: 'configured', scopes: ['read'] }, settings);
  assert.deepEqual([asked.apiVersion, first.apiVersion, configured.apiVersion], ['2026-12-05', '2026-11-21', '2026-11-28']);
  assert.equal((await getApiKey(db, asked.id))?.apiVersion, '2026-12-05');
  assert.deepEqual((await listApiKeys(db, { limit: 3 })).keys.map((key) => key.apiVersion), ['2026-11-28', '2026-11-21', '2026-12-05']);
});

test('a version not served, or past its sunset under the settings given, is refused as POST /api/keys refuses it, and nothing is made', async () => {
  const before = await database.countRows('api_keys');
  const refusal = async (apiVersion: unknown, settings?: Parameters<typeof createApiKey>[2]): Promise<string[]> => {
    const error = await createApiKey(db, { name: 'x', scopes: ['read'], apiVersion: apiVersion as string }, settings).then(() => null, (thrown: unknown) => thrown);
    assert.ok(error instanceof ApiKeyValidationError, String(apiVersion));
    return error.errors.map((entry) => `${'pointer' in entry ? entry.pointer : ''} ${entry.code}`);
  };
  assert.deepEqual(await refusal('2026-11-22'), ['/apiVersion invalid_enum']);
  assert.deepEqual(await refusal(20261205), ['/apiVersion type']);
  const sunset = loadConfig({ SVC_API_SUNSET: '2026-11-21=2020-01-01T00:00:00Z', SVC_API_VERSION: '2026-12-05' }).versions;
  assert.deepEqual(await refusal('2026-11-21', sunset), ['/apiVersion invalid_enum']);
  assert.equal(await database.countRows('api_keys'), before);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { migrate } from '../../src/db/migrate.ts';
import { generateKey, keyDigest } from '../../src/keys/format.ts';
import { startServer } from '../../src/server.ts';
import { bearer } from '../support/keys.ts';
import { migrateBefore } from '../support/migrate-before.ts';
import { capturingLogger, patchJson } from '../support/server.ts';
import { createTestDatabase } from '../support/test-database.ts';

// Keys stored before versions existed (as migration 010 finds them: no api_version, no version) pin
// the first version, 2026-11-21, so their programs see no change, and keep the entity tags they had:
// "1", and "2" once revoked. On the run's engine (the PostgreSQL pass runs it too).
const [FIRST, LISTS] = ['2026-11-21', '2026-11-28'];

test('keys made before migration 010 pin 2026-11-21 and keep their tags; a PATCH moves them on', async () => {
  const database = await createTestDatabase({ migrated: false });
  const live = generateKey();
  const revoked = generateKey();
  const digest = (key: string): string => keyDigest(key).toString('base64url');
  let db = database.open();
  try {
    await migrateBefore(db, '010');
  } finally {
    await closeDatabase(db);
  }
  // The columns of migration 003, as the service of the version before inserted them.
  await database.sql(`INSERT INTO api_keys (id, name, scopes, digest, created_at, expires_at, revoked_at) VALUES
    ('${live.id}', 'old admin', 'admin', '${digest(live.key)}', '2026-11-20T09:30:00.000Z', NULL, NULL),
    ('${revoked.id}', 'old reader', 'read', '${digest(revoked.key)}', '2026-11-20T09:31:00.000Z', NULL, '2026-11-20T10:00:00.000Z')`);
  db = database.open();
  try {
    await migrate(db);
  } finally {
    await closeDatabase(db);
  }
  const config = loadConfig({ SVC_PORT: '0', SVC_DB_DURABILITY: 'normal', SVC_AUTH: 'keys', ...database.env });
  const server = await startServer(config, { logger: capturingLogger(config, []) });
  try {
    const get = (path: string, headers: Record<string, string> = {}): Promise<Response> => fetch(`${server.url}${path}`, { headers: { ...bearer(live.key), ...headers } });
    // Without the header its answers are those of the first version: a list is an array, a key has no apiVersion.
    const list = await get('/api/keys');
    assert.equal(list.headers.get('api-version'), FIRST);
    const listed = (await list.json()) as Record<string, unknown>[];
    assert.deepEqual(listed.map((apiKey) => [apiKey['id'], Object.hasOwn(apiKey, 'apiVersion')]), [[revoked.id, false], [live.id, false]]);
    // The tags they had: "1", "2" once revoked; in a later version each shows it pins 2026-11-21.
    for (const [id, tag] of [[live.id, '1'], [revoked.id, '2']] as const) {
      assert.equal((await get(`/api/keys/${id}`)).headers.get('etag'), `"${tag}"`);
      const later = await get(`/api/keys/${id}`, { 'api-version': LISTS });
      assert.deepEqual([later.headers.get('etag'), ((await later.json()) as Record<string, unknown>)['apiVersion']], [`"${tag}.1"`, FIRST]);
    }
    const moved = await patchJson(`${server.url}/api/keys/${live.id}`, { apiVersion: LISTS }, { ...bearer(live.key), 'if-match': '"1"' });
    assert.deepEqual([moved.status, moved.headers.get('etag')], [200, '"2"']);
    const after = await get('/api/keys');
    assert.deepEqual([after.headers.get('api-version'), Object.keys((await after.json()) as object)], [LISTS, ['data', 'hasMore']]);
  } finally {
    await server.close();
    await database.drop();
  }
});

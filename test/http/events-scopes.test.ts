import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem, eventually } from '../support/assertions.ts';
import { bearer, type KeysServer, type MadeKey, startKeysServer } from '../support/keys.ts';
import { postJson } from '../support/server.ts';

let server: KeysServer;
let reader: MadeKey;
let writer: MadeKey;
before(async () => {
  server = await startKeysServer();
  reader = await server.newKey({ name: 'reader', scopes: ['read'] });
  writer = await server.newKey({ name: 'writer', scopes: ['write'] });
});
after(() => server.stop());

test('with SVC_AUTH=keys the feed needs a credential with read: 401 without one, 200 with read, write or admin', async () => {
  assert.equal((await postJson(`${server.url}/api/workspaces`, { name: 'seen' }, bearer(writer.key))).status, 201);
  const refused = await fetch(`${server.url}/api/events`);
  await assertProblem(refused, 401, 'unauthorized', '/api/events');
  assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
  await assertProblem(await fetch(`${server.url}/api/events`, { headers: bearer('svc_not_a_key') }), 401, 'unauthorized', '/api/events');
  assert.equal((await fetch(`${server.url}/api/events`, { method: 'HEAD' })).status, 401);
  for (const key of [reader, writer, server.admin]) {
    // Visible at once on SQLite; on PostgreSQL once every transaction begun before it has ended.
    await eventually(`${key.name} reads the event`, async () => {
      const response = await fetch(`${server.url}/api/events`, { headers: bearer(key.key) });
      assert.equal(response.status, 200, key.name);
      return ((await response.json()) as { type: string }[]).some((event) => event.type === 'workspace.created');
    });
  }
});

test('a key revoked before the request reads nothing more', async () => {
  const doomed = await server.newKey({ name: 'doomed', scopes: ['read'] });
  assert.equal((await fetch(`${server.url}/api/events`, { headers: bearer(doomed.key) })).status, 200);
  assert.equal((await fetch(`${server.url}/api/keys/${doomed.id}`, { method: 'DELETE', headers: bearer(server.admin.key) })).status, 204);
  await assertProblem(await fetch(`${server.url}/api/events`, { headers: bearer(doomed.key) }), 401, 'unauthorized', '/api/events');
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { bearer, type KeysServer } from '../support/keys.ts';
import { startKeysServerServing } from '../support/resource-requests.ts';
import { ALL_RESOURCES, filtersOf } from '../support/resources.ts';
import { postJson } from '../support/server.ts';

// A list has no entity tag, so If-Match and If-None-Match decide nothing on it; a malformed one is still
// 400 invalid_header, as on every resource (docs/api.md, conditional requests): never guessed away.
// Every list the app serves: each resource's (the test resource included), filtered by each of its
// filters too, the keys', the webhooks' and a webhook's deliveries.

let server: KeysServer;
let hook: number;
before(async () => {
  server = await startKeysServerServing(ALL_RESOURCES, { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
  const made = await postJson(`${server.url}/api/webhooks`, { url: 'http://127.0.0.1:9/hook' }, bearer(server.admin.key));
  assert.equal(made.status, 201);
  hook = ((await made.json()) as { id: number }).id;
});
after(() => server.stop());

const lists = (): string[] => [
  ...ALL_RESOURCES.flatMap((resource) => [resource.path, ...filtersOf(resource).map(({ field, value }) => `${resource.path}?${field}=${value}`)]),
  '/api/keys',
  '/api/webhooks',
  `/api/webhooks/${hook}/deliveries`,
];

test('every list: a malformed If-None-Match or If-Match is 400 invalid_header naming the field', async () => {
  for (const path of lists()) {
    for (const [name, value] of [
      ['if-none-match', 'zz'],
      ['if-none-match', '"1", zz'],
      ['if-match', 'W/'],
      ['if-match', '*, "1"'],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { headers: { ...bearer(server.admin.key), [name]: value } });
      const problem = await assertProblem(response, 400, 'invalid_header', path.split('?')[0] as string);
      const field = name === 'if-match' ? 'If-Match' : 'If-None-Match';
      assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, field, `${path} ${name}: ${value}`);
    }
  }
});

test('every list: a well-formed one decides nothing (200, the page)', async () => {
  for (const path of lists()) {
    for (const headers of [{ 'if-none-match': '"1"' }, { 'if-none-match': '*' }, { 'if-match': '"nope"' }]) {
      const response = await fetch(`${server.url}${path}`, { headers: { ...bearer(server.admin.key), ...headers } });
      assert.equal(response.status, 200, `${path} ${JSON.stringify(headers)}`);
      assert.ok(Array.isArray(await response.json()));
    }
  }
});

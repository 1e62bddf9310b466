import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Resource } from '../../src/resources/resource.ts';
import { bearer, type KeysServer, type MadeKey } from '../support/keys.ts';
import { changeOf, createAt, type Made, startKeysServerServing, tableOf } from '../support/resource-requests.ts';
import { ALL_RESOURCES, validBody } from '../support/resources.ts';
import { patchJson, postJson } from '../support/server.ts';

// Every scope against every operation, with SVC_AUTH=keys: allowed operations succeed, the others are
// 403 (401 without a key) with RFC 6750's challenge, and a refused request changes nothing at all. The
// operations of every resource served (the test resource included) come from their descriptions.
type Needs = 'open' | 'read' | 'write' | 'admin';
/** A fresh item of each resource (by plural), a key's path and a (disabled) webhook's path, made by the admin for each request. */
interface Targets {
  items: Record<string, Made>;
  key: string;
  webhook: string;
}
interface Operation {
  name: string;
  needs: Needs;
  success: number;
  send(url: string, auth: Record<string, string>, targets: Targets): Promise<Response>;
}

const get = (method: 'GET' | 'HEAD', path: (t: Targets) => string) => (url: string, auth: Record<string, string>, t: Targets) => fetch(`${url}${path(t)}`, { method, headers: auth });

// The five endpoints of a resource (docs/api.md), from its description.
function resourceOperations(resource: Resource): Operation[] {
  const item = (t: Targets): Made => t.items[resource.plural] as Made;
  const { path } = resource;
  return [
    { name: `GET ${path}`, needs: 'read', success: 200, send: get('GET', () => path) },
    { name: `HEAD ${path}`, needs: 'read', success: 200, send: get('HEAD', () => path) },
    { name: `GET ${path}/{id}`, needs: 'read', success: 200, send: get('GET', (t) => item(t).path) },
    { name: `HEAD ${path}/{id}`, needs: 'read', success: 200, send: get('HEAD', (t) => item(t).path) },
    { name: `POST ${path}`, needs: 'write', success: 201, send: (url, auth) => postJson(`${url}${path}`, validBody(resource, 2), auth) },
    { name: `PATCH ${path}/{id}`, needs: 'write', success: 200, send: (url, auth, t) => patchJson(`${url}${item(t).path}`, changeOf(resource, item(t).body), auth) },
    { name: `DELETE ${path}/{id}`, needs: 'write', success: 204, send: (url, auth, t) => fetch(`${url}${item(t).path}`, { method: 'DELETE', headers: auth }) },
  ];
}

const OPERATIONS: Operation[] = [
  { name: 'GET /api/ping', needs: 'open', success: 200, send: get('GET', () => '/api/ping') },
  { name: 'HEAD /api/ping', needs: 'open', success: 200, send: get('HEAD', () => '/api/ping') },
  { name: 'GET /api/openapi.json', needs: 'open', success: 200, send: get('GET', () => '/api/openapi.json') },
  { name: 'GET /api/versions', needs: 'open', success: 200, send: get('GET', () => '/api/versions') },
  { name: 'HEAD /api/versions', needs: 'open', success: 200, send: get('HEAD', () => '/api/versions') },
  ...ALL_RESOURCES.flatMap(resourceOperations),
  { name: 'GET /api/keys', needs: 'admin', success: 200, send: get('GET', () => '/api/keys') },
  { name: 'HEAD /api/keys', needs: 'admin', success: 200, send: get('HEAD', () => '/api/keys') },
  { name: 'GET /api/keys/{id}', needs: 'admin', success: 200, send: get('GET', (t) => t.key) },
  { name: 'HEAD /api/keys/{id}', needs: 'admin', success: 200, send: get('HEAD', (t) => t.key) },
  { name: 'POST /api/keys', needs: 'admin', success: 201, send: (url, auth) => postJson(`${url}/api/keys`, { name: 'made', scopes: ['read'] }, auth) },
  { name: 'PATCH /api/keys/{id}', needs: 'admin', success: 200, send: (url, auth, t) => patchJson(`${url}${t.key}`, { name: 'renamed' }, auth) },
  { name: 'DELETE /api/keys/{id}', needs: 'admin', success: 204, send: (url, auth, t) => fetch(`${url}${t.key}`, { method: 'DELETE', headers: auth }) },
  { name: 'GET /api/events', needs: 'read', success: 200, send: get('GET', () => '/api/events') },
  { name: 'HEAD /api/events', needs: 'read', success: 200, send: get('HEAD', () => '/api/events') },
  { name: 'GET /api/docs', needs: 'open', success: 200, send: get('GET', () => '/api/docs') },
  ...webhookOperations(),
];

// The webhook endpoints (docs/webhooks.md), all admin's. The target webhook is disabled, so no delivery runs behind the test's back.
function webhookOperations(): Operation[] {
  const send = (method: string, path: (t: Targets) => string, withBody = false) => (url: string, auth: Record<string, string>, t: Targets) =>
    fetch(`${url}${path(t)}`, { method, headers: { ...auth, 'content-type': 'application/json' }, ...(withBody ? { body: '{"url":"http://127.0.0.1:9/changed"}' } : {}) });
  return [
    { name: 'GET /api/webhooks', needs: 'admin', success: 200, send: get('GET', () => '/api/webhooks') },
    { name: 'HEAD /api/webhooks', needs: 'admin', success: 200, send: get('HEAD', () => '/api/webhooks') },
    { name: 'POST /api/webhooks', needs: 'admin', success: 201, send: send('POST', () => '/api/webhooks', true) },
    { name: 'GET /api/webhooks/{id}', needs: 'admin', success: 200, send: get('GET', (t) => t.webhook) },
    { name: 'HEAD /api/webhooks/{id}', needs: 'admin', success: 200, send: get('HEAD', (t) => t.webhook) },
    { name: 'PATCH /api/webhooks/{id}', needs: 'admin', success: 200, send: send('PATCH', (t) => t.webhook, true) },
    { name: 'DELETE /api/webhooks/{id}', needs: 'admin', success: 204, send: send('DELETE', (t) => t.webhook) },
    { name: 'POST /api/webhooks/{id}/rotate-secret', needs: 'admin', success: 200, send: send('POST', (t) => `${t.webhook}/rotate-secret`) },
    { name: 'GET /api/webhooks/{id}/deliveries', needs: 'admin', success: 200, send: get('GET', (t) => `${t.webhook}/deliveries`) },
    { name: 'HEAD /api/webhooks/{id}/deliveries', needs: 'admin', success: 200, send: get('HEAD', (t) => `${t.webhook}/deliveries`) },
    // A disabled webhook has no delivery to retry: the admin gets past the scope check to the 404 of the retry itself.
    { name: 'POST /api/webhooks/{id}/deliveries/{eventId}/retry', needs: 'admin', success: 404, send: send('POST', (t) => `${t.webhook}/deliveries/1/retry`) },
  ];
}

// What a caller may do, as a number: no key -1 (open operations only), then each scope above the last.
const RANK: Readonly<Record<Needs, number>> = { open: -1, read: 1, write: 2, admin: 3 };

describe('every scope against every operation (SVC_AUTH=keys)', () => {
  let server: KeysServer;
  const callers: { name: string; rank: number; key: MadeKey | null }[] = [];
  before(async () => {
    server = await startKeysServerServing(ALL_RESOURCES, { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
    callers.push({ name: 'no key', rank: -1, key: null });
    for (const scope of ['read', 'write', 'admin'] as const) callers.push({ name: scope, rank: RANK[scope], key: await server.newKey({ name: `${scope} caller`, scopes: [scope] }) });
  });
  after(() => server.stop());

  const admin = (): Record<string, string> => bearer(server.admin.key);

  // Fresh targets for each request: an item of every resource, a key and a webhook, made by the admin.
  async function freshTargets(): Promise<Targets> {
    const items: Record<string, Made> = {};
    for (const resource of ALL_RESOURCES) items[resource.plural] = await createAt(server.url, resource, 1, admin());
    const key = (await postJson(`${server.url}/api/keys`, { name: 'target', scopes: ['read'] }, admin())).headers.get('location') ?? '';
    const webhook = (await postJson(`${server.url}/api/webhooks`, { url: 'http://127.0.0.1:9/target', status: 2 }, admin())).headers.get('location') ?? '';
    return { items, key, webhook };
  }

  // Everything a request could change: the row counts, and each target as the admin reads it.
  async function snapshot(targets: Targets): Promise<unknown> {
    const counts = await Promise.all([...ALL_RESOURCES.map(tableOf), 'api_keys', 'webhooks'].map((table) => server.database.countRows(table)));
    const revoked = await server.database.countRows('api_keys', 'revoked_at IS NOT NULL');
    // The secrets too: a refused rotation must leave them as they were, and no read shows them.
    const webhooks = await server.database.sql('SELECT id, url, status, secret, previous_secret, version FROM webhooks ORDER BY id');
    const paths = [...Object.values(targets.items).map((item) => item.path), targets.key, targets.webhook];
    const reads = await Promise.all(paths.map(async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { headers: admin() });
      return [response.status, response.headers.get('etag'), await response.text()];
    }));
    return { counts, revoked, webhooks, reads };
  }

  test('the table holds every route the app serves, so a route added later cannot be left out of it', () => {
    const named = new Set(OPERATIONS.map((operation) => operation.name));
    for (const { method, pattern } of server.app.routes) assert.ok(named.has(`${method} ${pattern}`), `${method} ${pattern} is in the table`);
    assert.equal(named.size, OPERATIONS.length, 'no operation twice');
  });

  for (const operation of OPERATIONS) {
    test(`${operation.name} (needs ${operation.needs}) with no key and with each scope`, async () => {
      for (const caller of callers) {
        const targets = await freshTargets();
        const before = await snapshot(targets);
        const response = await operation.send(server.url, caller.key === null ? {} : bearer(caller.key.key), targets);
        const what = `${operation.name} as ${caller.name}`;
        if (caller.rank >= RANK[operation.needs]) {
          assert.equal(response.status, operation.success, what);
          continue;
        }
        const challenge = response.headers.get('www-authenticate');
        if (caller.key === null) {
          assert.equal(response.status, 401, what);
          assert.equal(challenge, 'Bearer', what);
        } else {
          assert.equal(response.status, 403, what);
          assert.equal(challenge, `Bearer error="insufficient_scope", scope="${operation.needs}"`, what);
        }
        if (operation.name.startsWith('GET')) assert.equal(((await response.json()) as { code: string }).code, caller.key === null ? 'unauthorized' : 'forbidden');
        assert.deepEqual(await snapshot(targets), before, `${what} changed nothing`);
      }
    });
  }

  test('an admin key may revoke itself: the DELETE is 204, and its next request is 401', async () => {
    const self = await server.newKey({ name: 'short-lived admin', scopes: ['admin'] });
    const revoked = await fetch(`${server.url}/api/keys/${self.id}`, { method: 'DELETE', headers: bearer(self.key) });
    assert.equal(revoked.status, 204);
    const next = await fetch(`${server.url}/api/keys`, { headers: bearer(self.key) });
    assert.equal(next.status, 401);
    assert.equal(((await next.json()) as { detail: string }).detail, 'The API key has been revoked.');
  });
});

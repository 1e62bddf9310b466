import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type KeysServer, type MadeKey, startKeysServer } from '../support/keys.ts';
import { patchJson, postJson } from '../support/server.ts';

// Every scope against every operation, with SVC_AUTH=keys: allowed operations succeed, the others are
// 403 (401 without a key) with RFC 6750's challenge, and a refused request changes nothing at all.
type Needs = 'open' | 'read' | 'write' | 'admin';
interface Targets {
  product: string;
  workspace: string;
  key: string;
}
interface Operation {
  name: string;
  needs: Needs;
  success: number;
  send(url: string, auth: Record<string, string>, targets: Targets): Promise<Response>;
}

const get = (method: 'GET' | 'HEAD', path: (t: Targets) => string) => (url: string, auth: Record<string, string>, t: Targets) => fetch(`${url}${path(t)}`, { method, headers: auth });

function resourceOperations(resource: 'products' | 'workspaces', body: object): Operation[] {
  const item = (t: Targets): string => (resource === 'products' ? t.product : t.workspace);
  return [
    { name: `GET /api/${resource}`, needs: 'read', success: 200, send: get('GET', () => `/api/${resource}`) },
    { name: `HEAD /api/${resource}`, needs: 'read', success: 200, send: get('HEAD', () => `/api/${resource}`) },
    { name: `GET /api/${resource}/{id}`, needs: 'read', success: 200, send: get('GET', item) },
    { name: `HEAD /api/${resource}/{id}`, needs: 'read', success: 200, send: get('HEAD', item) },
    { name: `POST /api/${resource}`, needs: 'write', success: 201, send: (url, auth) => postJson(`${url}/api/${resource}`, body, auth) },
    { name: `PATCH /api/${resource}/{id}`, needs: 'write', success: 200, send: (url, auth, t) => patchJson(`${url}${item(t)}`, { name: 'Changed' }, auth) },
    { name: `DELETE /api/${resource}/{id}`, needs: 'write', success: 204, send: (url, auth, t) => fetch(`${url}${item(t)}`, { method: 'DELETE', headers: auth }) },
  ];
}

const OPERATIONS: Operation[] = [
  { name: 'GET /api/ping', needs: 'open', success: 200, send: get('GET', () => '/api/ping') },
  { name: 'HEAD /api/ping', needs: 'open', success: 200, send: get('HEAD', () => '/api/ping') },
  { name: 'GET /api/openapi.json', needs: 'open', success: 200, send: get('GET', () => '/api/openapi.json') },
  ...resourceOperations('products', { name: 'Lamp', priceInCents: 100 }),
  ...resourceOperations('workspaces', { name: 'Acme' }),
  { name: 'GET /api/keys', needs: 'admin', success: 200, send: get('GET', () => '/api/keys') },
  { name: 'HEAD /api/keys', needs: 'admin', success: 200, send: get('HEAD', () => '/api/keys') },
  { name: 'GET /api/keys/{id}', needs: 'admin', success: 200, send: get('GET', (t) => t.key) },
  { name: 'HEAD /api/keys/{id}', needs: 'admin', success: 200, send: get('HEAD', (t) => t.key) },
  { name: 'POST /api/keys', needs: 'admin', success: 201, send: (url, auth) => postJson(`${url}/api/keys`, { name: 'made', scopes: ['read'] }, auth) },
  { name: 'DELETE /api/keys/{id}', needs: 'admin', success: 204, send: (url, auth, t) => fetch(`${url}${t.key}`, { method: 'DELETE', headers: auth }) },
];

// What a caller may do, as a number: no key -1 (open operations only), then each scope above the last.
const RANK: Readonly<Record<Needs, number>> = { open: -1, read: 1, write: 2, admin: 3 };

describe('every scope against every operation (SVC_AUTH=keys)', () => {
  let server: KeysServer;
  const callers: { name: string; rank: number; key: MadeKey | null }[] = [];
  before(async () => {
    server = await startKeysServer();
    callers.push({ name: 'no key', rank: -1, key: null });
    for (const scope of ['read', 'write', 'admin'] as const) callers.push({ name: scope, rank: RANK[scope], key: await server.newKey({ name: `${scope} caller`, scopes: [scope] }) });
  });
  after(() => server.stop());

  const admin = (): Record<string, string> => bearer(server.admin.key);

  // Fresh targets for each request: a product, a workspace and a key, made by the admin.
  async function freshTargets(): Promise<Targets> {
    const location = async (path: string, body: object): Promise<string> => (await postJson(`${server.url}${path}`, body, admin())).headers.get('location') ?? '';
    return {
      product: await location('/api/products', { name: 'Target', priceInCents: 1 }),
      workspace: await location('/api/workspaces', { name: 'Target' }),
      key: await location('/api/keys', { name: 'target', scopes: ['read'] }),
    };
  }

  // Everything a request could change: the row counts, and each target as the admin reads it.
  async function snapshot(targets: Targets): Promise<unknown> {
    const counts = await Promise.all(['products', 'workspaces', 'api_keys'].map((table) => server.database.countRows(table)));
    const revoked = await server.database.countRows('api_keys', 'revoked_at IS NOT NULL');
    const reads = await Promise.all(Object.values(targets).map(async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { headers: admin() });
      return [response.status, response.headers.get('etag'), await response.text()];
    }));
    return { counts, revoked, reads };
  }

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

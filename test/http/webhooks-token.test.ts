import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { RESOURCES } from '../support/resources.ts';

type Json = Record<string, unknown>;
const TOKEN = 'webhooks-need-the-token-0123';
const GOOD = { authorization: `Bearer ${TOKEN}` };
// A receiver's own secret in its URL: what SVC_API_TOKEN keeps from anyone without the token.
const URL_SECRET = 'receiver-token-SEKRET';

// SVC_API_TOKEN guards every request to /api/webhooks and below (contract §7), reads included.
describe('SVC_API_TOKEN guards the webhooks, reads included', () => {
  let server: TestServer;
  let id: number;
  let eventId: string;
  before(async () => {
    server = await startTestServer({ SVC_API_TOKEN: TOKEN, SVC_CORS_ORIGINS: 'https://app.example.com' });
    const made = await postJson(`${server.url}/api/webhooks`, { url: `https://hooks.example.com/in?token=${URL_SECRET}`, status: 2 }, GOOD);
    assert.equal(made.status, 201);
    id = Number(((await made.json()) as Json)['id']);
    // A delivery in its log: enabled for one event, then disabled again (nothing is ever sent: no attempt is due before the PATCH).
    assert.equal((await patchJson(`${server.url}/api/webhooks/${id}`, { status: 1 }, GOOD)).status, 200);
    assert.equal((await postJson(`${server.url}/api/products`, { name: 'logged', priceInCents: 1 }, GOOD)).status, 201);
    assert.equal((await patchJson(`${server.url}/api/webhooks/${id}`, { status: 2 }, GOOD)).status, 200);
    const log = (await (await fetch(`${server.url}/api/webhooks/${id}/deliveries`, { headers: GOOD })).json()) as Json[];
    eventId = String(log[0]?.['eventId']);
  });
  after(() => server.stop());

  // Every operation on the webhooks, as [method, path, body].
  const operations = (): [string, string, unknown][] => [
    ['GET', '/api/webhooks', undefined],
    ['HEAD', '/api/webhooks', undefined],
    ['GET', `/api/webhooks/${id}`, undefined],
    ['HEAD', `/api/webhooks/${id}`, undefined],
    ['GET', '/api/webhooks/999999', undefined],
    ['GET', `/api/webhooks/${id}/deliveries`, undefined],
    ['HEAD', `/api/webhooks/${id}/deliveries`, undefined],
    ['POST', '/api/webhooks', { url: 'https://hooks.example.com/other', status: 2 }],
    ['PATCH', `/api/webhooks/${id}`, { events: ['product.created'] }],
    ['POST', `/api/webhooks/${id}/rotate-secret`, undefined],
    ['POST', `/api/webhooks/${id}/deliveries/${eventId}/retry`, undefined],
    ['DELETE', `/api/webhooks/${id}`, undefined],
  ];
  const send = (method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Response> => {
    if (body === undefined) return fetch(`${server.url}${path}`, { method, headers });
    const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    return fetch(`${server.url}${path}`, { method, headers: { 'content-type': type, ...headers }, body: JSON.stringify(body) });
  };

  test('without the token, with a wrong one or another scheme: 401 with WWW-Authenticate: Bearer, no URL shown, nothing changed', async () => {
    const rows = await server.database.sql('SELECT id, url, status, secret, version FROM webhooks ORDER BY id');
    for (const headers of [{}, { authorization: 'Bearer not-the-token-at-all-000' }, { authorization: `Basic ${TOKEN}` }]) {
      for (const [method, path, body] of operations()) {
        const response = await send(method, path, body, headers);
        const text = await response.text();
        assert.equal(response.status, 401, `${method} ${path} ${JSON.stringify(headers)}: ${text}`);
        assert.equal(response.headers.get('www-authenticate'), 'Bearer', `${method} ${path}`);
        if (method !== 'HEAD') assert.equal((JSON.parse(text) as Json)['code'], 'unauthorized');
        assert.ok(!text.includes(URL_SECRET) && !text.includes('hooks.example.com'), `${method} ${path} shows nothing of a webhook`);
      }
    }
    assert.deepEqual(await server.database.sql('SELECT id, url, status, secret, version FROM webhooks ORDER BY id'), rows);
  });

  test('with the token every operation is let through', async () => {
    const expected: Record<string, number> = { GET: 200, HEAD: 200, POST: 201, PATCH: 200, DELETE: 204 };
    for (const [method, path, body] of operations()) {
      const response = await send(method, path, body, GOOD);
      await response.arrayBuffer();
      const status = path === '/api/webhooks/999999' ? 404 : path.endsWith('/rotate-secret') ? 200 : path.endsWith('/retry') ? 409 : expected[method];
      assert.equal(response.status, status, `${method} ${path}`);
    }
  });

  test('a CORS preflight needs no token; the other reads stay open', async () => {
    const preflight = await fetch(`${server.url}/api/webhooks`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(preflight.status, 204);
    for (const path of [...RESOURCES.map((resource) => `/api/${resource.plural}`), '/api/events', '/api/ping']) {
      const response = await fetch(`${server.url}${path}`);
      await response.arrayBuffer();
      assert.equal(response.status, 200, path);
    }
  });
});

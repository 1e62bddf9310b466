// The requests under load, and a check that a server answers them as the contract says.
import assert from 'node:assert/strict';

const NEW_PRODUCT = JSON.stringify({ name: 'Desk lamp', priceInCents: 1999 });

export const REQUESTS = {
  ping: { path: '/api/ping', status: 200 },
  list: { path: '/api/products?limit=50', status: 200 },
  create: { path: '/api/products', method: 'POST', body: NEW_PRODUCT, headers: { 'content-type': 'application/json' }, status: 201 },
};

const SAME_EVERYWHERE = ['content-security-policy', 'cache-control', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'strict-transport-security'];

/** Sends `request` once and fails loudly when the answer is not what the service would give. */
export async function checkAnswer(server, request, { expectItems = 50 } = {}) {
  const response = await fetch(server.url + request.path, { method: request.method ?? 'GET', body: request.body, headers: request.headers });
  const body = await response.json();
  const where = `${server.name} ${request.method ?? 'GET'} ${request.path}`;
  assert.equal(response.status, request.status, `${where}: status`);
  for (const name of SAME_EVERYWHERE) assert.ok(response.headers.get(name), `${where}: header ${name}`);
  if (request.path === '/api/ping' && !server.name.includes('ceiling')) {
    assert.deepEqual(body, { status: 1, checks: { database: 1, schema: 1 } }, `${where}: body`);
    assert.ok(response.headers.get('x-request-id'), `${where}: x-request-id`);
  }
  if (request.path.startsWith('/api/products?')) {
    assert.equal(body.length, expectItems, `${where}: items`);
    assert.deepEqual(Object.keys(body[0]), ['id', 'name', 'priceInCents', 'status', 'createdAt'], `${where}: members`);
    assert.match(response.headers.get('link') ?? '', /rel="next"/, `${where}: link`);
  }
  if (request.method === 'POST') assert.equal(response.headers.get('location'), `/api/products/${body.id}`, `${where}: location`);
}

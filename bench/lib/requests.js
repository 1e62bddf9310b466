// The requests under load, and a check that a server answers them as the contract says.
import assert from 'node:assert/strict';

const NEW_PRODUCT = JSON.stringify({ name: 'Desk lamp', priceInCents: 1999 });

export const REQUESTS = {
  ping: { path: '/api/ping', status: 200 },
  list: { path: '/api/products?limit=50', status: 200 },
  create: { path: '/api/products', method: 'POST', body: NEW_PRODUCT, headers: { 'content-type': 'application/json' }, status: 201 },
};

// A product as the server's build presents it: schema version 2 (change and delete) added updatedAt.
const membersOf = (server) => ['id', 'name', 'priceInCents', 'status', 'createdAt', ...((server.schemaVersion ?? 2) >= 2 ? ['updatedAt'] : [])];

const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
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
    assert.deepEqual(Object.keys(body[0]), membersOf(server), `${where}: members`);
    assert.match(body[0].createdAt, INSTANT, `${where}: createdAt`);
    assert.match(response.headers.get('link') ?? '', /rel="next"/, `${where}: link`);
  }
  if (request.method === 'POST') {
    assert.deepEqual(Object.keys(body), membersOf(server), `${where}: members`);
    assert.match(body.createdAt, INSTANT, `${where}: createdAt`);
    if (body.updatedAt !== undefined) assert.equal(body.updatedAt, body.createdAt, `${where}: updatedAt`);
    assert.equal(response.headers.get('location'), `/api/products/${body.id}`, `${where}: location`);
    if ((server.schemaVersion ?? 2) >= 2) assert.equal(response.headers.get('etag'), '"1"', `${where}: etag`);
  }
}

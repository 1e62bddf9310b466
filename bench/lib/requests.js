// The requests under load, and a check that a server answers them as the contract says. Ours runs in
// two API versions (docs/versions.md): the default (no header), and the newest, whose requests send
// `Api-Version` and whose answers show a product's `price` and every list as `{ data, hasMore }`.
import assert from 'node:assert/strict';

/** The version the "newest version" contender asks for; checked against what the server lists as newest. */
export const NEWEST_VERSION = '2026-12-05';
/** The version a request without `Api-Version` gets when SVC_API_VERSION is unset. */
const DEFAULT_VERSION = '2026-11-21';

const NAME = 'Desk lamp';
const CENTS = 1999;
const CURRENCY = 'EUR';

function requestsWith(body, headers = {}) {
  return {
    ping: { path: '/api/ping', status: 200, headers },
    list: { path: '/api/products?limit=50', status: 200, headers },
    create: { path: '/api/products', method: 'POST', body: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' }, status: 201 },
  };
}

/** The default version's requests: what every contender but "ours, newest version" is sent. */
export const REQUESTS = requestsWith({ name: NAME, priceInCents: CENTS });
const NEWEST_REQUESTS = requestsWith({ name: NAME, price: { amount: CENTS, currency: CURRENCY } }, { 'api-version': NEWEST_VERSION });

/** The request of `endpoint` in the API version `server` is measured in (`server.apiVersion`, the default if unset). */
export const requestFor = (server, endpoint) => (server.apiVersion === NEWEST_VERSION ? NEWEST_REQUESTS : REQUESTS)[endpoint];

// A product as the server's build presents it: schema version 2 (change and delete) added updatedAt;
// the newest version shows `price` where the default shows `priceInCents`.
const membersOf = (server) => [
  'id', 'name', server.apiVersion === NEWEST_VERSION ? 'price' : 'priceInCents', 'status', 'createdAt',
  ...((server.schemaVersion ?? 2) >= 2 ? ['updatedAt'] : []),
];

const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SAME_EVERYWHERE = ['content-security-policy', 'cache-control', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'strict-transport-security'];

// A list answer's items: an array in the default version, `{ data, hasMore }` in the newest (more
// than a page of products exist, so hasMore is true).
function itemsOf(server, body, where) {
  if (server.apiVersion !== NEWEST_VERSION) return body;
  assert.deepEqual(Object.keys(body), ['data', 'hasMore'], `${where}: list members`);
  assert.equal(body.hasMore, true, `${where}: hasMore`);
  return body.data;
}

function checkProduct(server, product, where) {
  assert.deepEqual(Object.keys(product), membersOf(server), `${where}: members`);
  assert.match(product.createdAt, INSTANT, `${where}: createdAt`);
  if (server.apiVersion === NEWEST_VERSION) {
    assert.deepEqual(Object.keys(product.price), ['amount', 'currency'], `${where}: price members`);
    assert.ok(Number.isInteger(product.price.amount) && product.price.currency === CURRENCY, `${where}: price ${JSON.stringify(product.price)}`);
  }
}

// A server that names its version (ours since versions exist) answers in the one asked for, or the
// default; the newest contender's must be the newest the server lists (a later version would make
// the label wrong: this file then needs that version's requests).
async function checkVersions(server, response, where) {
  const answered = response.headers.get('api-version');
  if (answered !== null || server.apiVersion !== undefined) assert.equal(answered, server.apiVersion ?? DEFAULT_VERSION, `${where}: Api-Version answered`);
  if (server.apiVersion === undefined) return;
  const listed = await (await fetch(`${server.url}/api/versions`)).json();
  assert.equal(listed.versions[0]?.version, NEWEST_VERSION, `${server.name}: GET /api/versions names ${NEWEST_VERSION} the newest`);
  assert.equal(listed.default, DEFAULT_VERSION, `${server.name}: GET /api/versions names ${DEFAULT_VERSION} the default`);
}

/** Sends `request` once and fails loudly when the answer is not what the service would give. */
export async function checkAnswer(server, request, { expectItems = 50 } = {}) {
  const response = await fetch(server.url + request.path, { method: request.method ?? 'GET', body: request.body, headers: request.headers });
  const body = await response.json();
  const where = `${server.name} ${request.method ?? 'GET'} ${request.path}`;
  assert.equal(response.status, request.status, `${where}: status`);
  for (const name of SAME_EVERYWHERE) assert.ok(response.headers.get(name), `${where}: header ${name}`);
  await checkVersions(server, response, where);
  if (request.path === '/api/ping' && !server.name.includes('ceiling')) {
    assert.deepEqual(body, { status: 1, checks: { database: 1, schema: 1 } }, `${where}: body`);
    assert.ok(response.headers.get('x-request-id'), `${where}: x-request-id`);
  }
  if (request.path.startsWith('/api/products?')) {
    const items = itemsOf(server, body, where);
    assert.equal(items.length, expectItems, `${where}: items`);
    checkProduct(server, items[0], where);
    assert.match(response.headers.get('link') ?? '', /rel="next"/, `${where}: link`);
  }
  if (request.method === 'POST') {
    checkProduct(server, body, where);
    if (server.apiVersion === NEWEST_VERSION) assert.deepEqual(body.price, { amount: CENTS, currency: CURRENCY }, `${where}: price`);
    if (body.updatedAt !== undefined) assert.equal(body.updatedAt, body.createdAt, `${where}: updatedAt`);
    assert.equal(response.headers.get('location'), `/api/products/${body.id}`, `${where}: location`);
    // A tag is per version where the representation differs: "1" in the default, "1.1" in the newest.
    const etag = server.apiVersion === NEWEST_VERSION ? '"1.1"' : '"1"';
    if ((server.schemaVersion ?? 2) >= 2) assert.equal(response.headers.get('etag'), etag, `${where}: etag`);
  }
}

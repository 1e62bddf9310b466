// Checks of the peers part, made on each server before it is measured: its credential work (every way
// a credential can be bad is refused, a valid one without the scope is 403, ping stays open), its
// paging (the next link continues the list; a cursor needs its checksum) and, for the contenders that
// claim the service's exact rules, a create's validation (the same field errors, trimming, 415).
import assert from 'node:assert/strict';
import { checksumOf } from '../peers/credentials.js';
import { credentialFor } from './credentials.js';

const LIST = '/api/products?limit=1';
const NEW_PRODUCT = JSON.stringify({ name: 'Checked lamp', priceInCents: 100 });

async function statusOf(server, path, { method = 'GET', authorization, body } = {}) {
  const headers = { ...(authorization === undefined ? {} : { authorization }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const response = await fetch(server.url + path, { method, headers, body });
  await response.arrayBuffer();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

// A key of the right shape whose last checksum character is changed: refused before any lookup.
const brokenChecksum = (key) => key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
// A well-formed key (valid checksum) for an id no database holds.
const unknownKey = (credentials) => withChecksum(credentials.keys.readWrite.key.slice(0, -6).replace(/^svc_.{12}/, 'svc_000000000000'));
// The real id of the key under load with another secret, and a valid checksum: only the digest tells.
const wrongSecret = (credentials) => withChecksum(`${credentials.keys.readWrite.key.slice(0, 17)}${'7'.repeat(43)}`);
const withChecksum = (body) => body + checksumOf(body);

function badCredentials(credentials, mode) {
  const bad = { 'no bearer scheme': 'Basic Ym9iOnNlY3JldA==', 'not a credential': 'Bearer not-a-credential' };
  if (mode === 'keys') {
    Object.assign(bad, {
      'a broken checksum': `Bearer ${brokenChecksum(credentials.keys.readWrite.key)}`,
      'a wrong secret for a real id': `Bearer ${wrongSecret(credentials)}`,
      'a revoked key': `Bearer ${credentials.keys.revoked.key}`,
      'an expired key': `Bearer ${credentials.keys.expired.key}`,
    });
  }
  if (mode === 'jwt') {
    Object.assign(bad, {
      'a token signed by a key outside the JWKS': `Bearer ${credentials.tokens.forged}`,
      'a token for another audience': `Bearer ${credentials.tokens.otherAudience}`,
      'a token from another issuer': `Bearer ${credentials.tokens.otherIssuer}`,
      'an expired token': `Bearer ${credentials.tokens.expired}`,
    });
  }
  return bad;
}

/**
 * Whether `server` refuses a request without credentials in `mode`: false for a build that does not
 * enforce it (the runner then skips that row). Throws on any other departure from the rules.
 */
export async function checkCredentials(server, mode, credentials) {
  if (mode === 'off') return true;
  const where = (what) => `${server.name} (${mode}): ${what}`;
  const missing = await statusOf(server, LIST);
  if (missing.status !== 401) return false;
  // The Fastify peer answers with @fastify/bearer-auth's 401, which names no challenge.
  if (server.exactRules) assert.match(missing.challenge ?? '', /^Bearer/, where('WWW-Authenticate on a 401'));
  assert.equal((await statusOf(server, '/api/ping')).status, 200, where('GET /api/ping is open'));
  for (const [what, authorization] of Object.entries(badCredentials(credentials, mode))) {
    assert.equal((await statusOf(server, LIST, { authorization })).status, 401, where(`${what} is refused`));
  }
  // Unknown ids are looked up once (then bounded by the service's budget); one is enough here.
  if (mode === 'keys') assert.equal((await statusOf(server, LIST, { authorization: `Bearer ${unknownKey(credentials)}` })).status, 401, where('an unknown key is refused'));
  const readOnly = `Bearer ${credentialFor(credentials, mode, 'readOnly')}`;
  assert.equal((await statusOf(server, LIST, { authorization: readOnly })).status, 200, where('a read-only credential lists'));
  const refused = await statusOf(server, '/api/products', { method: 'POST', authorization: readOnly, body: NEW_PRODUCT });
  assert.equal(refused.status, 403, where('a read-only credential cannot create'));
  return true;
}

// A create with four errors at once: the service's codes and pointers, in its order.
const BAD_CREATE = JSON.stringify({ name: ' \u0007 ', priceInCents: 1.5, status: 3, colour: 'red' });
const BAD_CREATE_ERRORS = [
  ['/name', 'invalid_characters'],
  ['/priceInCents', 'not_integer'],
  ['/status', 'invalid_enum'],
  ['/colour', 'unknown_field'],
];

/**
 * Every server: two pages of 5 joined by the `next` link are the first 10 products, and a cursor for
 * another id without the right checksum is 400.
 */
export async function checkPaging(server, authorization) {
  const headers = authorization === undefined ? {} : { authorization };
  const idsOf = async (path) => {
    const response = await fetch(server.url + path, { headers });
    assert.equal(response.status, 200, `${server.name}: GET ${path}`);
    return { ids: (await response.json()).map((product) => product.id), link: response.headers.get('link') ?? '' };
  };
  const first = await idsOf('/api/products?limit=5');
  const next = /^<([^>]+)>; rel="next"$/.exec(first.link)?.[1];
  assert.ok(next, `${server.name}: a first page of 5 links the next`);
  const second = await idsOf(next);
  const ten = await idsOf('/api/products?limit=10');
  assert.deepEqual([...first.ids, ...second.ids], ten.ids, `${server.name}: the next page continues where the first ends`);
  const forged = Buffer.concat([Buffer.from('products:500', 'latin1'), Buffer.alloc(4)]).toString('base64url');
  const refused = await fetch(`${server.url}/api/products?limit=5&cursor=${forged}`, { headers });
  await refused.arrayBuffer();
  assert.equal(refused.status, 400, `${server.name}: a cursor without its checksum is 400`);
}

/** For servers that claim the service's create rules: a bad create gets the same 422, every error at once. */
export async function checkCreateRules(server, authorization) {
  const headers = { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) };
  const response = await fetch(`${server.url}/api/products`, { method: 'POST', headers, body: BAD_CREATE });
  const body = await response.json();
  assert.equal(response.status, 422, `${server.name}: a bad create is 422`);
  assert.deepEqual(body.errors.map((e) => [e.pointer, e.code]), BAD_CREATE_ERRORS, `${server.name}: every field error at once`);
  // A name is trimmed, and a status given is kept (one product more in the copy this server measures on).
  const trimmed = await fetch(`${server.url}/api/products`, { method: 'POST', headers, body: JSON.stringify({ name: '  Trimmed lamp ', priceInCents: 0, status: 2 }) });
  const product = await trimmed.json();
  assert.equal(trimmed.status, 201, `${server.name}: a create with a name to trim is 201`);
  assert.deepEqual([product.name, product.priceInCents, product.status], ['Trimmed lamp', 0, 2], `${server.name}: the name trimmed, the status kept`);
  const wrongType = await fetch(`${server.url}/api/products`, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: NEW_PRODUCT });
  await wrongType.arrayBuffer();
  assert.equal(wrongType.status, 415, `${server.name}: a body that is not JSON is 415`);
}

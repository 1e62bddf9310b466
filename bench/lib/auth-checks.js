// Checks, before anything is measured, that a contender does the credential work of its auth mode
// (every way a credential can be bad is refused, a valid one without the scope is 403, ping stays
// open) and, for the contenders that claim the service's exact rules, that a bad create is refused
// with the same field errors.
import assert from 'node:assert/strict';
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
const unknownKey = (credentials) => credentials.keys.readWrite.key.replace(/^svc_.{12}/, 'svc_000000000000');

function badCredentials(credentials, mode) {
  const bad = { 'no bearer scheme': 'Basic Ym9iOnNlY3JldA==', 'not a credential': 'Bearer not-a-credential' };
  if (mode === 'keys') {
    Object.assign(bad, {
      'a broken checksum': `Bearer ${brokenChecksum(credentials.keys.readWrite.key)}`,
      'a revoked key': `Bearer ${credentials.keys.revoked.key}`,
      'an expired key': `Bearer ${credentials.keys.expired.key}`,
    });
  }
  if (mode === 'jwt') bad['a token signed by a key outside the JWKS'] = `Bearer ${credentials.tokens.forged}`;
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

/** For servers that claim the service's create rules: a bad create gets the same 422, every error at once. */
export async function checkCreateRules(server, authorization) {
  const headers = { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) };
  const response = await fetch(`${server.url}/api/products`, { method: 'POST', headers, body: BAD_CREATE });
  const body = await response.json();
  assert.equal(response.status, 422, `${server.name}: a bad create is 422`);
  assert.deepEqual(body.errors.map((e) => [e.pointer, e.code]), BAD_CREATE_ERRORS, `${server.name}: every field error at once`);
  const wrongType = await fetch(`${server.url}/api/products`, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: NEW_PRODUCT });
  await wrongType.arrayBuffer();
  assert.equal(wrongType.status, 415, `${server.name}: a body that is not JSON is 415`);
}

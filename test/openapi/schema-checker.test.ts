import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import { validate } from '../support/schema.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';
import { documentOf } from './documents.ts';

// The checker the conformance tests rely on must be able to fail: these prove each rule bites.
const DOCUMENT = documentOf('keys');
const PRODUCT = { $ref: '#/components/schemas/Product' };
const good = { id: 1, name: 'Lamp', priceInCents: 0, status: 2, createdAt: '2026-11-22T09:30:00.000Z', updatedAt: '2026-11-22T09:31:00.000Z' };

test('a conforming product passes', () => {
  assert.deepEqual(validate(good, PRODUCT, DOCUMENT), []);
});

test('each broken rule of the Product schema is reported', () => {
  const cases: [string, unknown][] = [
    ['missing required member createdAt', { ...good, createdAt: undefined }],
    ['missing required member updatedAt', { ...good, updatedAt: undefined }],
    ['unexpected member extra', { ...good, extra: 1 }],
    ['expected integer, got string', { ...good, priceInCents: '1' }],
    ['expected integer, got number', { ...good, priceInCents: 1.5 }],
    ['is below the minimum 1', { ...good, id: 0 }],
    ['is above the maximum 2147483647', { ...good, priceInCents: 2_147_483_648 }],
    ['matches 0 of the oneOf schemas', { ...good, status: 3 }],
    ['longer than 200', { ...good, name: '😀'.repeat(201) }],
    ['shorter than 1', { ...good, name: '' }],
    ['does not match', { ...good, name: 'a\u0007b' }],
    ['does not match', { ...good, createdAt: '2026-11-22T09:30:00Z' }],
    ['expected object, got array', [good]],
  ];
  for (const [message, value] of cases) {
    const json = JSON.parse(JSON.stringify(value)) as unknown;
    const errors = validate(json, PRODUCT, DOCUMENT);
    assert.ok(errors.some((error) => error.includes(message)), `${message}: ${JSON.stringify(errors)}`);
  }
});

test('each broken rule of the ApiKey schemas is reported; null and a time both pass where either may be', () => {
  const key = { id: '7hG2kP9xQ1aZ', name: 'ci', scopes: ['read', 'write'], createdAt: good.createdAt, expiresAt: null, revokedAt: good.updatedAt };
  const API_KEY = { $ref: '#/components/schemas/ApiKey' };
  assert.deepEqual(validate(key, API_KEY, DOCUMENT), []);
  assert.deepEqual(validate({ ...key, expiresAt: good.createdAt, revokedAt: null }, API_KEY, DOCUMENT), []);
  const cases: [string, unknown, string][] = [
    ['items are not unique', { ...key, scopes: ['read', 'read'] }, 'ApiKey'],
    ['fewer than 1 items', { ...key, scopes: [] }, 'ApiKey'],
    ['is not one of', { ...key, scopes: ['root'] }, 'ApiKey'],
    ['does not match', { ...key, id: 'short' }, 'ApiKey'],
    ['expected string,null, got integer', { ...key, expiresAt: 0 }, 'ApiKey'],
    ['unexpected member key', { ...key, key: 'svc_' }, 'ApiKey'],
    ['missing required member key', key, 'CreatedApiKey'],
    ['does not match', { ...key, key: `svc_${key.id}_${'0'.repeat(48)}` }, 'CreatedApiKey'],
  ];
  for (const [message, value, schema] of cases) {
    const errors = validate(value, { $ref: `#/components/schemas/${schema}` }, DOCUMENT);
    assert.ok(errors.some((error) => error.includes(message)), `${message}: ${JSON.stringify(errors)}`);
  }
});

test("a 401's and a 403's WWW-Authenticate are checked: the challenge of RFC 6750, with the operation's own scope", async () => {
  const checker = new ConformanceChecker(DOCUMENT);
  const problem = (status: number, code: string): string =>
    JSON.stringify({ type: 'about:blank', title: status === 401 ? 'Unauthorized' : 'Forbidden', status, code, detail: 'd', instance: '/api/products', requestId: 'r' });
  const send = (status: number, challenge: Record<string, string>): Response =>
    fakeResponse(status, { 'content-type': 'application/problem+json', ...challenge }, problem(status, status === 401 ? 'unauthorized' : 'forbidden'));
  for (const challenge of ['Bearer', 'Bearer error="invalid_token", error_description="The credential is not valid."']) {
    assert.equal((await checker.check('GET', '/api/products', send(401, { 'www-authenticate': challenge }))).status, 401);
  }
  await assert.rejects(checker.check('GET', '/api/products', send(401, {})), /WWW-Authenticate: required but absent/);
  await assert.rejects(checker.check('GET', '/api/products', send(401, { 'www-authenticate': 'Basic' })), /WWW-Authenticate/);
  assert.equal((await checker.check('POST', '/api/products', send(403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="write"' }))).status, 403);
  await assert.rejects(checker.check('POST', '/api/keys', send(403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="write"' })), /WWW-Authenticate/);
  await assert.rejects(checker.check('GET', '/api/products', send(403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="read"' })), /status 403 is not documented/);
});

test('code points, not UTF-16 units, count towards maxLength', () => {
  assert.deepEqual(validate({ ...good, name: '😀'.repeat(200) }, PRODUCT, DOCUMENT), []);
});

test('const, enum, items and allOf are enforced', () => {
  const schema = { type: 'array', minItems: 1, items: { allOf: [{ type: 'object' }, { properties: { code: { enum: ['a'] }, v: { const: 1 } } }] } };
  assert.deepEqual(validate([{ code: 'a', v: 1 }], schema, DOCUMENT), []);
  assert.equal(validate([], schema, DOCUMENT).length, 1);
  assert.equal(validate([{ code: 'b', v: 2 }], schema, DOCUMENT).length, 2);
});

test('an unsupported keyword is refused rather than ignored', () => {
  assert.throws(() => validate(1, { multipleOf: 2 }, DOCUMENT), /multipleOf/);
});

// The API version of the document, which every answer under /api names.
const VERSION = String((DOCUMENT['info'] as Record<string, unknown>)['version']);

// A response as fetch would give it; built by hand, since a real Response cannot carry a body on 204 or 304.
// A header given as '' is left out.
function fakeResponse(status: number, headers: Record<string, string>, text = ''): Response {
  const all = new Headers(Object.entries({ ...SECURITY_HEADERS, 'x-request-id': 'req-1', 'api-version': VERSION, vary: 'Api-Version', ...headers }).filter(([, value]) => value !== ''));
  return { status, headers: all, text: () => Promise.resolve(text) } as unknown as Response;
}

test('no-content responses: a 204 or 304 as documented passes; a body, a Content-Type or a missing ETag is refused', async () => {
  const checker = new ConformanceChecker(DOCUMENT);
  const item = '/api/products/{id}';
  assert.equal((await checker.check('DELETE', item, fakeResponse(204, {}))).status, 204);
  assert.equal((await checker.check('GET', item, fakeResponse(304, { etag: '"3"' }))).status, 304);
  await assert.rejects(checker.check('DELETE', item, fakeResponse(204, {}, '{}')), /has no body/);
  await assert.rejects(checker.check('DELETE', item, fakeResponse(204, { 'content-length': '0' })), /no Content-Length/);
  await assert.rejects(checker.check('GET', item, fakeResponse(304, { etag: '"3"', 'content-type': 'application/json' })), /no Content-Type/);
  await assert.rejects(checker.check('GET', item, fakeResponse(304, {})), /header ETag: required but absent/);
  await assert.rejects(checker.check('GET', item, fakeResponse(304, { etag: 'W/"3"' })), /header ETag/);
  // An answer that does not say its version, or says another than the checker's.
  await assert.rejects(checker.check('DELETE', item, fakeResponse(204, { 'api-version': '' })), /header Api-Version: required but absent/);
  const other = (DOCUMENT['components'] as { headers: { ApiVersion: { schema: { enum: string[] } } } }).headers.ApiVersion.schema.enum.find((id) => id !== VERSION) ?? '';
  await assert.rejects(new ConformanceChecker(DOCUMENT, VERSION).check('DELETE', item, fakeResponse(204, { 'api-version': other })), /made in the version of the run/);
  // A header a client reads, sent where the document does not list it.
  await assert.rejects(checker.check('DELETE', item, fakeResponse(204, { etag: '"3"' })), /header etag: sent but not documented/);
  await assert.rejects(checker.check('DELETE', item, fakeResponse(204, { location: '/api/products/3' })), /header location: sent but not documented/);
});

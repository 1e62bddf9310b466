import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import { buildOpenApiDocument } from '../../src/openapi/document.ts';
import { validate } from '../support/schema.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';

// The checker the conformance tests rely on must be able to fail: these prove each rule bites.
const DOCUMENT = buildOpenApiDocument({ bearerAuth: true, rateLimited: true });
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

// A response as fetch would give it; built by hand, since a real Response cannot carry a body on 204 or 304.
function fakeResponse(status: number, headers: Record<string, string>, text = ''): Response {
  const all = new Headers({ ...SECURITY_HEADERS, 'x-request-id': 'req-1', ...headers });
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
});

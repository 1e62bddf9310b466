import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../../src/openapi/document.ts';
import { validate } from '../support/schema.ts';

// The checker the conformance tests rely on must be able to fail: these prove each rule bites.
const DOCUMENT = buildOpenApiDocument({ bearerAuth: true, rateLimited: true });
const PRODUCT = { $ref: '#/components/schemas/Product' };
const good = { id: 1, name: 'Lamp', priceInCents: 0, status: 2, createdAt: '2026-11-22T09:30:00.000Z' };

test('a conforming product passes', () => {
  assert.deepEqual(validate(good, PRODUCT, DOCUMENT), []);
});

test('each broken rule of the Product schema is reported', () => {
  const cases: [string, unknown][] = [
    ['missing required member createdAt', { ...good, createdAt: undefined }],
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

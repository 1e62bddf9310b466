import assert from 'node:assert/strict';
import { test } from 'node:test';
import { products } from '../../src/products/resource.ts';
import { validatorsOf } from '../../src/resources/validate.ts';
import { fieldsIn } from '../support/resources.ts';

// The rules of priceInCents, as a product is written in the first version (SVC_API_VERSION's default);
// the newest version's price is test/http/product-prices.test.ts's.
const { validateNew: validateNewProduct } = validatorsOf({ fields: fieldsIn(products) });

type Result = ReturnType<typeof validateNewProduct>;

// Bodies are parsed from JSON text, as the server does, so `__proto__` is an own member.
const validate = (json: string): Result => validateNewProduct(JSON.parse(json));

function errorCodes(result: Result): string[] {
  return result.ok ? [] : result.errors.map((error) => `${'pointer' in error ? error.pointer : '?'} ${error.code}`);
}

const withPrice = (price: string): string => `{"name":"Lamp","priceInCents":${price}}`;

test('a minimal product is accepted; status is absent when not sent', () => {
  assert.deepEqual(validate('{"name":"Lamp","priceInCents":1999}'), { ok: true, value: { name: 'Lamp', priceInCents: 1999 } });
});

test('priceInCents: 0 and 2147483647 are accepted', () => {
  assert.deepEqual(validate(withPrice('0')), { ok: true, value: { name: 'Lamp', priceInCents: 0 } });
  assert.deepEqual(validate(withPrice('2147483647')), { ok: true, value: { name: 'Lamp', priceInCents: 2147483647 } });
});

test('priceInCents: -1 is too_small and 2147483648 too_large, with details', () => {
  assert.deepEqual(validate(withPrice('-1')), {
    ok: false,
    errors: [{ pointer: '/priceInCents', code: 'too_small', detail: 'priceInCents must be at least 0' }],
  });
  assert.deepEqual(validate(withPrice('2147483648')), {
    ok: false,
    errors: [{ pointer: '/priceInCents', code: 'too_large', detail: 'priceInCents must be at most 2147483647' }],
  });
});

test('priceInCents: a number beyond double range is too_large or too_small, not not_integer', () => {
  assert.deepEqual(errorCodes(validate(withPrice('1e400'))), ['/priceInCents too_large']);
  assert.deepEqual(errorCodes(validate(withPrice('-1e400'))), ['/priceInCents too_small']);
});

test('priceInCents: a fraction is not_integer', () => {
  assert.deepEqual(errorCodes(validate(withPrice('1.5'))), ['/priceInCents not_integer']);
  assert.deepEqual(errorCodes(validate(withPrice('-0.5'))), ['/priceInCents not_integer']);
  assert.deepEqual(errorCodes(validate(withPrice('2147483647.5'))), ['/priceInCents not_integer']);
});

test('priceInCents: numbers whose value is whole are integers however they are written', () => {
  // JSON.parse gives the same value for 100, 1e2 and 100.0; the contract speaks of values.
  for (const text of ['1e2', '100.0']) assert.deepEqual(validate(withPrice(text)), { ok: true, value: { name: 'Lamp', priceInCents: 100 } });
});

test('priceInCents: strings are not coerced; null, booleans and objects are type', () => {
  for (const text of ['"100"', '"1e2"', 'null', 'true', '[]', '{}']) {
    assert.deepEqual(validate(withPrice(text)), {
      ok: false,
      errors: [{ pointer: '/priceInCents', code: 'type', detail: 'priceInCents must be a number' }],
    }, text);
  }
});

test('priceInCents: missing is required', () => {
  assert.deepEqual(validate('{"name":"Lamp"}'), {
    ok: false,
    errors: [{ pointer: '/priceInCents', code: 'required', detail: 'priceInCents is required' }],
  });
});

test('status: 1 and 2 are accepted and kept', () => {
  assert.deepEqual(validate('{"name":"L","priceInCents":1,"status":1}'), { ok: true, value: { name: 'L', priceInCents: 1, status: 1 } });
  assert.deepEqual(validate('{"name":"L","priceInCents":1,"status":2}'), { ok: true, value: { name: 'L', priceInCents: 1, status: 2 } });
});

test('status: another number is invalid_enum; a string, boolean or null is type', () => {
  for (const text of ['0', '3', '-1', '1.5']) {
    assert.deepEqual(errorCodes(validate(`{"name":"L","priceInCents":1,"status":${text}}`)), ['/status invalid_enum'], text);
  }
  for (const text of ['"1"', 'true', 'null', '[1]']) {
    assert.deepEqual(errorCodes(validate(`{"name":"L","priceInCents":1,"status":${text}}`)), ['/status type'], text);
  }
  const result = validate('{"name":"L","priceInCents":1,"status":3}');
  assert.equal(result.ok ? '' : result.errors[0]?.detail, 'status must be one of 1, 2');
});

test('unknown members are unknown_field, __proto__ and constructor included', () => {
  const result = validate('{"name":"L","priceInCents":1,"price_in_cents":1,"__proto__":{"x":1},"constructor":1,"toString":"x"}');
  assert.deepEqual(errorCodes(result), ['/price_in_cents unknown_field', '/__proto__ unknown_field', '/constructor unknown_field', '/toString unknown_field']);
  assert.equal(result.ok ? '' : result.errors[0]?.detail, 'price_in_cents is not a known field');
});

test('an unknown member name is escaped as a JSON pointer (RFC 6901)', () => {
  assert.deepEqual(errorCodes(validate('{"name":"L","priceInCents":1,"a/b~c":1,"":2}')), ['/a~1b~0c unknown_field', '/ unknown_field']);
});

test('an inherited name is never mistaken for a member', () => {
  // Object.prototype has `constructor` and `toString`; the validator must only see own members.
  assert.deepEqual(errorCodes(validate('{}')), ['/name required', '/priceInCents required']);
});

test('duplicate members are not an error: the last one counts', () => {
  assert.deepEqual(validate('{"name":"First","priceInCents":-5,"name":"Last","priceInCents":5}'), {
    ok: true,
    value: { name: 'Last', priceInCents: 5 },
  });
  assert.deepEqual(errorCodes(validate('{"name":"L","priceInCents":5,"priceInCents":-5}')), ['/priceInCents too_small']);
});

test('every field error is reported at once, in field order, then unknown fields', () => {
  assert.deepEqual(errorCodes(validate('{"zzz":1,"name":"  ","priceInCents":1.5,"status":"1"}')), [
    '/name too_short',
    '/priceInCents not_integer',
    '/status type',
    '/zzz unknown_field',
  ]);
  assert.deepEqual(errorCodes(validate('{"name":"a\\u0000","status":9}')), ['/name invalid_characters', '/priceInCents required', '/status invalid_enum']);
});

test('valid JSON that is not an object is one type error at the root pointer', () => {
  for (const text of ['[]', '[{"name":"L","priceInCents":1}]', '1', '"x"', 'null', 'true']) {
    assert.deepEqual(validate(text), {
      ok: false,
      errors: [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }],
    }, text);
  }
});

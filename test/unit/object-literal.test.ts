import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Member, objectLiteral, sourceOf } from '../../src/resources/object-literal.ts';

// The compiled builders of rows and representations (src/resources/object-literal.ts): the function is
// the literal an author would write, its members in the shape's order, and a name is only ever a key.

const shape = new Map<string, Member>([
  ['id', { path: [0], asNumber: true }],
  ['name', { path: [1] }],
  ['price', new Map<string, Member>([['amount', { path: [2] }], ['currency', { path: [3] }]])],
]);

test('the source is an object literal reading each member by its path, the id made a number', () => {
  assert.equal(sourceOf(shape), 'return { "id": Number(from[0]), "name": from[1], "price": { "amount": from[2], "currency": from[3] } };');
});

test('the built object has exactly the members, in order, nested objects included', () => {
  const build = objectLiteral<readonly unknown[], Record<string, unknown>>(shape);
  const built = build(['17', 'Desk lamp', 2499, 'EUR']);
  assert.deepEqual(built, { id: 17, name: 'Desk lamp', price: { amount: 2499, currency: 'EUR' } });
  assert.deepEqual(Object.keys(built), ['id', 'name', 'price']);
  assert.equal(JSON.stringify(built), '{"id":17,"name":"Desk lamp","price":{"amount":2499,"currency":"EUR"}}');
});

test('a name or key with quotes, backslashes or code in it stays a key: nothing of it runs', () => {
  const odd = '"); globalThis.ran = true; ("\\';
  const build = objectLiteral<Record<string, unknown>, Record<string, unknown>>(new Map([[odd, { path: [odd] }]]));
  assert.deepEqual(build({ [odd]: 1 }), { [odd]: 1 });
  assert.equal((globalThis as Record<string, unknown>)['ran'], undefined);
});

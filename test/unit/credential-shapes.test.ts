import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactCredentials } from '../../src/callers/shapes.ts';
import { generateKey } from '../../src/keys/format.ts';

test('redactCredentials replaces every key and every JWT-shaped run, and leaves other text as it is', () => {
  const one = generateKey().key;
  const two = generateKey().key;
  const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.sig-_part';
  assert.equal(redactCredentials(`/a?k=${one}&t=${jwt}&again=${two}`), '/a?k=[redacted]&t=[redacted]&again=[redacted]');
  const plain = '/api/products?limit=50&cursor=cHJvZHVjdHM6MTA';
  assert.equal(redactCredentials(plain), plain);
  // Near misses of a key's shape are not keys: too short, or another prefix.
  assert.equal(redactCredentials(`/x/${one.slice(0, 65)}`), `/x/${one.slice(0, 65)}`);
  assert.equal(redactCredentials(`/x/sv${one.slice(3)}`), `/x/sv${one.slice(3)}`);
});

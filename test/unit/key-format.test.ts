import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { base62, generateKey, KEY_ID_PATTERN, KEY_LENGTH, KEY_SCANNER_PATTERN, keyDigest, parseKey } from '../../src/keys/format.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// The key's parts, read independently of the code under test.
function partsOf(key: string): { id: string; secret: string; checksum: string } {
  const match = /^svc_([0-9A-Za-z]{12})_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/.exec(key);
  assert.ok(match !== null, `${key} has the documented shape`);
  return { id: match[1] ?? '', secret: match[2] ?? '', checksum: match[3] ?? '' };
}

function fromBase62(text: string): bigint {
  let value = 0n;
  for (const char of text) value = value * 62n + BigInt(ALPHABET.indexOf(char));
  return value;
}

test('a new key is svc_, a 12-character id, _, a 43-character secret and a 6-character CRC32 checksum: 66 characters', () => {
  const { id, key } = generateKey();
  assert.equal(key.length, 66);
  assert.equal(KEY_LENGTH, 66);
  const parts = partsOf(key);
  assert.equal(parts.id, id);
  assert.match(id, KEY_ID_PATTERN);
  assert.equal(fromBase62(parts.checksum), BigInt(crc32(key.slice(0, -6))), 'the checksum is the CRC32 of everything before it');
  assert.ok(fromBase62(parts.secret) < 2n ** 256n, 'the secret is a 256-bit number');
});

test('keys are random: 2,000 keys share no id and no secret, and every base62 character turns up in every position of the id', () => {
  const ids = new Set<string>();
  const secrets = new Set<string>();
  const seen = Array.from({ length: 12 }, () => new Set<string>());
  let bits = 0;
  for (let i = 0; i < 2_000; i++) {
    const { id, key } = generateKey();
    ids.add(id);
    secrets.add(partsOf(key).secret);
    [...id].forEach((char, at) => seen[at]?.add(char));
    bits += fromBase62(partsOf(key).secret).toString(2).length;
  }
  assert.equal(ids.size, 2_000);
  assert.equal(secrets.size, 2_000);
  for (const chars of seen) assert.equal(chars.size, 62);
  // A uniform 256-bit number has its top bit set half the time: the mean length is close to 255.
  assert.ok(bits / 2_000 > 254, `mean secret length ${bits / 2_000} bits`);
});

test('parseKey gives the id of a well-formed key with a valid checksum, and null for anything else, without I/O', () => {
  const { id, key } = generateKey();
  assert.equal(parseKey(key), id);
  const body = key.slice(0, -6);
  const flip = (text: string, at: number): string => text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
  for (const at of [4, 10, 17, 40, 59]) assert.equal(parseKey(flip(key, at)), null, `a changed character at ${at} fails the checksum`);
  for (const at of [60, 65]) assert.equal(parseKey(flip(key, at)), null, 'a changed checksum fails');
  assert.equal(parseKey(body + base62(BigInt(crc32(body)), 6)), id, 'the checksum is recomputable from the documented rule');
  for (const bad of ['', key.slice(1), `${key}a`, key.replace('svc_', 'SVC_'), key.replace('_', '-'), `x${key.slice(1)}`, key.toLowerCase(), 'svc_' + 'a'.repeat(62)]) {
    assert.equal(parseKey(bad), null, bad);
  }
});

test('base62 is fixed width, pads with zeros and refuses a number too wide', () => {
  assert.equal(base62(0n, 6), '000000');
  assert.equal(base62(61n, 2), '0z');
  assert.equal(base62(62n, 2), '10');
  assert.equal(base62(2n ** 32n - 1n, 6), '4gfFC3');
  assert.equal(base62(2n ** 256n - 1n, 43).length, 43, '43 characters hold any 256-bit secret');
  assert.throws(() => base62(62n ** 6n, 6), RangeError);
});

test('the scanner pattern finds a real key in text, and only the key', () => {
  const { key } = generateKey();
  const global = new RegExp(KEY_SCANNER_PATTERN.source, 'g');
  for (const text of [key, `SVC_KEY=${key}`, `"authorization": "Bearer ${key}"`, `token: '${key}' # ci`, `${key}\n`]) {
    assert.deepEqual(text.match(global), [key], text);
  }
  assert.equal(KEY_SCANNER_PATTERN.source, String.raw`\bsvc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}\b`, 'the pattern the README gives');
  for (const text of [`x${key}`, `${key}a`, key.slice(0, -1), `my_${key}`]) assert.equal(KEY_SCANNER_PATTERN.test(text), false, text);
});

test('the digest is the SHA-256 of the whole key', () => {
  const { key } = generateKey();
  assert.deepEqual(keyDigest(key), createHash('sha256').update(key).digest());
  assert.equal(keyDigest(key).length, 32);
});

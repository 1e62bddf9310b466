import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, secretBytes, signatureHeader, SigningKeys } from '../../src/webhooks/signature.ts';

const BODY = '{"id":"42","type":"product.created","createdAt":"2026-11-26T09:00:00.000Z","data":{"name":"Caf\u00e9 \u2615","emoji":"\ud83d\ude00"}}';
const now = (): number => Math.floor(Date.now() / 1000);

/** The three headers of an attempt, as a receiver gets them. */
function headers(secrets: readonly string[], id: string, timestamp: number, body = BODY): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(secrets, id, timestamp, body) };
}

test('a secret is whsec_ and the base64 of 32 random bytes, new every time', () => {
  const secrets = new Set(Array.from({ length: 100 }, newWebhookSecret));
  assert.equal(secrets.size, 100);
  for (const secret of secrets) {
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(secretBytes(secret).length, 32);
    assert.equal(Buffer.from(secret.slice(6), 'base64').equals(secretBytes(secret)), true);
  }
});

test('every signature verifies with the official standardwebhooks library, body bytes as sent', () => {
  for (let i = 0; i < 50; i++) {
    const secret = newWebhookSecret();
    const id = String(i * 7919);
    const body = i % 2 === 0 ? BODY : JSON.stringify({ id, note: '\u00e9\u2615 '.repeat(i) });
    const sent = headers([secret], id, now(), body);
    assert.match(sent['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(new Webhook(secret).verify(body, sent), JSON.parse(body));
  }
});

test('the signature is the one the reference library computes, keyed with the decoded bytes', () => {
  const secret = newWebhookSecret();
  const when = now();
  assert.equal(signatureHeader([secret], 'msg_1', when, BODY), new Webhook(secret).sign('msg_1', new Date(when * 1000), BODY));
  // The raw-bytes form of the same key gives the same signature: the key is the decoded bytes, not the text.
  assert.equal(signatureHeader([secret], 'msg_1', when, BODY), new Webhook(secretBytes(secret), { format: 'raw' }).sign('msg_1', new Date(when * 1000), BODY));
});

test('rotation: with two secrets the header has two signatures, and a receiver holding either verifies', () => {
  const previous = newWebhookSecret();
  const current = newWebhookSecret();
  const sent = headers([current, previous], '17', now());
  assert.match(sent['webhook-signature'] ?? '', /^v1,\S+ v1,\S+$/);
  assert.ok(new Webhook(previous).verify(BODY, sent));
  assert.ok(new Webhook(current).verify(BODY, sent));
  assert.throws(() => new Webhook(newWebhookSecret()).verify(BODY, sent), /No matching signature/);
});

test('a signature binds the id, the timestamp and every byte of the body', () => {
  const secret = newWebhookSecret();
  const when = now();
  const sent = headers([secret], '5', when);
  const hook = new Webhook(secret);
  assert.throws(() => hook.verify(`${BODY} `, sent), /No matching signature/);
  assert.throws(() => hook.verify(BODY, { ...sent, 'webhook-id': '6' }), /No matching signature/);
  assert.throws(() => hook.verify(BODY, { ...sent, 'webhook-timestamp': String(when + 1) }), /No matching signature/);
  assert.throws(() => hook.verify(BODY, headers([secret], '5', when - 3600)), /too old/);
});

test('keys imported once sign exactly as the secrets do: each secret its own key, a rotated one included', () => {
  const keys = new SigningKeys();
  const [previous, current, next] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
  const when = now();
  for (const secrets of [[previous], [current, previous], [next, current], [next]]) {
    // Twice: the second time from the keys already held.
    for (let round = 0; round < 2; round++) {
      const header = signatureHeader(secrets, '9', when, BODY, keys);
      assert.equal(header, signatureHeader(secrets, '9', when, BODY));
      for (const secret of secrets) assert.ok(new Webhook(secret).verify(BODY, { 'webhook-id': '9', 'webhook-timestamp': String(when), 'webhook-signature': header }));
    }
  }
  assert.equal(keys.size, 3);
  assert.throws(() => new Webhook(previous).verify(BODY, headers([next], '9', when)), /No matching signature/);
});

test('the keys held are bounded: past the bound they are dropped and made again, and still sign right', () => {
  const keys = new SigningKeys(4);
  const secrets = Array.from({ length: 10 }, newWebhookSecret);
  const when = now();
  for (const secret of [...secrets, ...secrets]) {
    const header = signatureHeader([secret], '1', when, BODY, keys);
    assert.ok(new Webhook(secret).verify(BODY, { 'webhook-id': '1', 'webhook-timestamp': String(when), 'webhook-signature': header }));
    assert.ok(keys.size <= 4, `${keys.size} keys held`);
  }
});

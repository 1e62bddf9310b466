import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { NOT_VALID } from '../../src/callers/caller.ts';
import { guessedKey, type KeysServer, keyWithOtherSecret, type MadeKey, startKeysServer } from '../support/keys.ts';
import { type RawResponse, rawRequest } from '../support/raw-http.ts';
import { scrape } from '../support/scrape.ts';

// Every way a credential can be bad, sent byte for byte over a raw socket. Which of them it was is
// counted (callers_refused_total) but never told, except expired and revoked to a holder of the whole key.
const MISSING_DETAIL = 'This request needs an Authorization: Bearer header with an API key or access token.';
const INVALID_TOKEN = `Bearer error="invalid_token", error_description="${NOT_VALID}"`;

describe('bad credentials with SVC_AUTH=keys', () => {
  let server: KeysServer;
  let reader: MadeKey;
  before(async () => {
    server = await startKeysServer({ SVC_METRICS_PORT: '0' });
    reader = await server.newKey({ name: 'reader', scopes: ['read'] });
  });
  after(() => server.stop());

  // GET /api/products with exactly this Authorization line (null: none at all).
  function call(authorization: string | null): Promise<RawResponse> {
    const lines = ['GET /api/products HTTP/1.1', 'Host: localhost', 'Connection: close'];
    if (authorization !== null) lines.push(authorization);
    return rawRequest(server.url, lines.join('\r\n'));
  }

  async function refusals(): Promise<Record<string, number>> {
    const s = await scrape(server.metricsUrl ?? '');
    const reasons = ['missing', 'malformed', 'unknown', 'invalid', 'expired', 'revoked', 'unverifiable'];
    return Object.fromEntries([...reasons.map((reason) => [reason, s.value('callers_refused_total', { reason })]), ['lookups', s.value('api_key_lookups_total', { result: 'found' }) + s.value('api_key_lookups_total', { result: 'absent' })]]);
  }

  // Sends `authorization`, checks the 401, its challenge and detail, and which refusal counter moved.
  async function refusedAs(authorization: string | null, reason: string, detail: string, challenge: string, lookups = 0): Promise<void> {
    const before = await refusals();
    const response = await call(authorization);
    assert.equal(response.status, 401, String(authorization));
    assert.equal(response.headers['www-authenticate'], challenge, String(authorization));
    const problem = JSON.parse(response.body) as Record<string, unknown>;
    assert.deepEqual([problem['code'], problem['detail']], ['unauthorized', detail], String(authorization));
    const after = await refusals();
    const moved = Object.keys(after).filter((name) => name !== 'lookups' && after[name] !== before[name]);
    assert.deepEqual(moved, [reason], String(authorization));
    assert.equal((after['lookups'] ?? 0) - (before['lookups'] ?? 0), lookups, `database reads for ${authorization}`);
  }

  test('no credential: none, empty, another scheme, Bearer with nothing after it: a bare Bearer challenge', async () => {
    for (const authorization of [null, 'Authorization:', 'Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Bearer', 'Authorization: Bearer  ', `Authorization: Token ${reader.key}`, `Authorization: ${reader.key}`]) {
      await refusedAs(authorization, 'missing', MISSING_DETAIL, 'Bearer');
    }
  });

  test('malformed, a bad checksum, an unknown id and the right id with a wrong secret get one and the same answer', async () => {
    const badChecksum = reader.key.slice(0, -1) + (reader.key.endsWith('A') ? 'B' : 'A');
    await refusedAs('Authorization: Bearer abc.def', 'malformed', NOT_VALID, INVALID_TOKEN);
    await refusedAs(`Authorization: Bearer ${reader.key} extra`, 'malformed', NOT_VALID, INVALID_TOKEN);
    await refusedAs(`Authorization: Bearer ${reader.key.slice(0, 65)}`, 'malformed', NOT_VALID, INVALID_TOKEN);
    await refusedAs(`Authorization: Bearer ${badChecksum}`, 'malformed', NOT_VALID, INVALID_TOKEN);
    // An id no key has costs no read of a key: it is not among the ids the process holds.
    await refusedAs(`Authorization: Bearer ${guessedKey()}`, 'unknown', NOT_VALID, INVALID_TOKEN);
    await refusedAs(`Authorization: Bearer ${keyWithOtherSecret(reader.id)}`, 'invalid', NOT_VALID, INVALID_TOKEN);
  });

  test('the scheme in any letter case, and more than one space before the key (RFC 6750: 1*SP), are accepted', async () => {
    for (const authorization of [`Authorization: bearer ${reader.key}`, `Authorization: BEARER ${reader.key}`, `Authorization: Bearer  ${reader.key}`, `authorization: Bearer ${reader.key}`]) {
      assert.equal((await call(authorization)).status, 200, authorization);
    }
  });

  test('a revoked key is told so, but only to whoever presents its whole secret', async () => {
    const revoked = await server.newKey({ name: 'to revoke', scopes: ['read'] });
    assert.equal((await call(`Authorization: Bearer ${revoked.key}`)).status, 200);
    assert.equal((await fetch(`${server.url}/api/keys/${revoked.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.admin.key}` } })).status, 204);
    await refusedAs(`Authorization: Bearer ${revoked.key}`, 'revoked', 'The API key has been revoked.', 'Bearer error="invalid_token", error_description="The API key has been revoked."');
    await refusedAs(`Authorization: Bearer ${keyWithOtherSecret(revoked.id)}`, 'invalid', NOT_VALID, INVALID_TOKEN);
  });

  test('an expired key stops at its expiry, told so only to whoever presents its whole secret', async () => {
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const expiring = await server.newKey({ name: 'short', scopes: ['read'], expiresAt });
    assert.equal((await call(`Authorization: Bearer ${expiring.key}`)).status, 200);
    // The expiry is judged against the clock on every request: a wait on the wall clock, not on events.
    await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 5);
    await refusedAs(`Authorization: Bearer ${expiring.key}`, 'expired', 'The API key has expired.', 'Bearer error="invalid_token", error_description="The API key has expired."');
    await refusedAs(`Authorization: Bearer ${keyWithOtherSecret(expiring.id)}`, 'invalid', NOT_VALID, INVALID_TOKEN);
  });

  test('a refused credential is 401 before anything about the path is told: no 404, 405, 413 or 415', async () => {
    const bad = `Bearer ${guessedKey()}`;
    const head = (method: string, path: string, extra: string[] = []): string => [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close', `Authorization: ${bad}`, ...extra].join('\r\n');
    for (const request of [head('GET', '/api/nowhere'), head('PUT', '/api/products'), head('POST', '/api/products', ['Content-Type: text/plain', 'Content-Length: 2']), head('POST', '/api/products', ['Content-Type: application/json', 'Content-Length: 999999999'])]) {
      const response = await rawRequest(server.url, request);
      assert.equal(response.status, 401, request.split('\r\n')[0]);
    }
  });
});

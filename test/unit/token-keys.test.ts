import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { CredentialCheck, Identified } from '../../src/callers/caller.ts';
import { createTokenCheck, JWKS_MAX_AGE_MS } from '../../src/tokens/token-check.ts';
import { eventually } from '../support/assertions.ts';
import { type DocumentServer, startDocumentServer } from '../support/document-server.ts';
import { signJws, type TestKey, testKey } from '../support/jws-signer.ts';

// The issuer's keys as the token check fetches them, from a loopback server that counts requests,
// on a clock the test moves: the cooldown, the single fetch in flight, failures and refreshes.
const ISSUER = 'https://id.example.com';
const AUDIENCE = 'svc';
const first = testKey('ES256', 'first');
const second = testKey('ES256', 'second');
const stranger = testKey('ES256', 'stranger');

let clock = Date.now();
const tokenOf = (key: TestKey, kid = key.kid, sub = 'u1'): string =>
  signJws({ alg: 'ES256', kid }, { iss: ISSUER, aud: AUDIENCE, sub, exp: Math.floor(clock / 1000) + 3600 }, key.privateKey);
// The contract's figure, not the code's constant: a change to the code must not carry the test along.
const COOLDOWN_MS = 30_000;
const reason = (identified: Identified): string => (identified.ok ? 'ok' : identified.refusal.reason);

describe('the issuer keys: fetched on demand, again for an unknown kid at most once per 30 s', { timeout: 30_000 }, () => {
  let server: DocumentServer;
  let check: CredentialCheck;
  const failures: string[] = [];
  const jwks = (): number => server.requests('/jwks');
  before(async () => {
    server = await startDocumentServer();
  });
  after(() => server.stop());
  beforeEach(() => {
    clock = Date.now();
    failures.length = 0;
    server.serve('/jwks', { keys: [first.publicJwk] });
    check = createTokenCheck(
      { issuer: ISSUER, audience: AUDIENCE, jwksUrl: `${server.origin}/jwks` },
      { requestTimeoutMs: 30_000, now: () => clock, onKeysUnavailable: (error) => failures.push(error.message) },
    );
  });

  test('a flood of unknown kids costs one fetch per 30 s; a key published meanwhile is found at 30 s, not before', async () => {
    const before = jwks();
    assert.equal(reason(await check.identify(tokenOf(first))), 'ok');
    assert.equal(jwks(), before + 1);
    server.serve('/jwks', { keys: [first.publicJwk, second.publicJwk] });
    const flood = await Promise.all(Array.from({ length: 1000 }, (_, i) => check.identify(tokenOf(stranger, `kid-${i}`))));
    assert.deepEqual(new Set(flood.map(reason)), new Set(['unknown']));
    clock += COOLDOWN_MS - 1;
    assert.equal(reason(await check.identify(tokenOf(second))), 'unknown');
    assert.equal(jwks(), before + 1);
    clock += 1;
    assert.equal(reason(await check.identify(tokenOf(second))), 'ok');
    assert.equal(jwks(), before + 2);
  });

  test('requests that need the keys at once share one fetch', async () => {
    const before = jwks();
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => check.identify(tokenOf(first, first.kid, `user-${i}`))));
    assert.deepEqual(new Set(all.map(reason)), new Set(['ok']));
    assert.equal(jwks(), before + 1);
  });

  test('a held key verifies synchronously; while the JWKS cannot be fetched it keeps working, others are unverifiable', async () => {
    assert.equal(reason(await check.identify(tokenOf(first))), 'ok');
    const known = check.identify(tokenOf(first, first.kid, 'another-user'));
    assert.equal(known instanceof Promise, false, 'no fetch, no wait');
    assert.equal(reason(await known), 'ok');
    server.serve('/jwks', 'down for maintenance', 503);
    clock += COOLDOWN_MS;
    assert.equal(reason(await check.identify(tokenOf(second))), 'unverifiable');
    assert.match(failures.join('\n'), /\/jwks answered 503/);
    assert.equal(reason(await check.identify(tokenOf(second))), 'unverifiable', 'within the cooldown: no fetch, the same answer');
    assert.equal(reason(await check.identify(tokenOf(first, first.kid, 'third-user'))), 'ok');
  });

  test('a failed fetch starts the cooldown too: no fetch again for an unknown kid until 30 s after it', async () => {
    server.serve('/jwks', 'down for maintenance', 503);
    const before = jwks();
    assert.equal(reason(await check.identify(tokenOf(first))), 'unverifiable');
    assert.equal(jwks(), before + 1);
    server.serve('/jwks', { keys: [first.publicJwk] });
    clock += COOLDOWN_MS - 1;
    const during = await Promise.all(Array.from({ length: 50 }, (_, i) => check.identify(tokenOf(first, first.kid, `u-${i}`))));
    assert.deepEqual(new Set(during.map(reason)), new Set(['unverifiable']));
    assert.equal(jwks(), before + 1, 'no fetch within the cooldown of a failed one');
    clock += 1;
    assert.equal(reason(await check.identify(tokenOf(first))), 'ok');
    assert.equal(jwks(), before + 2);
  });

  test('the 30 s run from the start of a fetch, not its end: after a fetch that took 10 s, a new key is found 20 s later', async () => {
    const before = jwks();
    // The clock moves while the fetch is under way, as it does when a provider is slow.
    const release = server.hold();
    const waiting = check.identify(tokenOf(first));
    await eventually('the fetch under way', () => jwks() === before + 1);
    clock += 10_000;
    release();
    assert.equal(reason(await waiting), 'ok');
    server.serve('/jwks', { keys: [first.publicJwk, second.publicJwk] });
    clock += COOLDOWN_MS - 10_000 - 1;
    assert.equal(reason(await check.identify(tokenOf(second))), 'unknown', '29.999 s after the fetch began');
    assert.equal(jwks(), before + 1);
    clock += 1;
    assert.equal(reason(await check.identify(tokenOf(second))), 'ok', '30 s after the fetch began, 20 s after it ended');
    assert.equal(jwks(), before + 2);
  });

  test('a token is judged at the end of the fetch it waited for: one that expires meanwhile is refused as expired', async () => {
    clock = Math.floor(clock / 1000) * 1000;
    // exp 59 s ago: within the 60 s of skew when the request comes, past it 2 s later.
    const token = signJws({ alg: 'ES256', kid: first.kid }, { iss: ISSUER, aud: AUDIENCE, sub: 'u1', exp: clock / 1000 - 59 }, first.privateKey);
    const release = server.hold();
    const before = jwks();
    const waiting = check.identify(token);
    await eventually('the fetch under way', () => jwks() === before + 1);
    clock += 2_000;
    release();
    assert.equal(reason(await waiting), 'expired');
    assert.equal(reason(await check.identify(tokenOf(first))), 'ok', 'the keys were fetched');
  });

  test('held keys are fetched again after 10 minutes, in the background, and a withdrawn key stops working', async () => {
    const token = tokenOf(first);
    assert.equal(reason(await check.identify(token)), 'ok');
    const before = jwks();
    server.serve('/jwks', { keys: [second.publicJwk] });
    clock += JWKS_MAX_AGE_MS;
    const during = check.identify(tokenOf(first, first.kid, 'other'));
    assert.equal(during instanceof Promise, false, 'the refresh does not hold the request up');
    assert.equal(reason(await during), 'ok');
    // Even the token verified before: its verdict went with the key.
    await eventually('the withdrawn key refused', async () => reason(await check.identify(token)) === 'unknown');
    assert.equal(jwks(), before + 1);
    assert.equal(reason(await check.identify(tokenOf(second))), 'ok');
  });
});

describe('the issuer documents: what is refused, and how long a request may wait for them', { timeout: 30_000 }, () => {
  let server: DocumentServer;
  // Stopped after the tests whatever happens to them, so a request it holds cannot keep the run alive.
  let hanging: DocumentServer;
  before(async () => {
    server = await startDocumentServer();
    hanging = await startDocumentServer();
    hanging.hang();
  });
  after(async () => {
    await server.stop();
    await hanging.stop();
  });

  async function failureOf(issuer: string, jwksUrl: string, requestTimeoutMs = 30_000): Promise<string> {
    const failures: string[] = [];
    const check = createTokenCheck({ issuer, audience: AUDIENCE, jwksUrl }, { requestTimeoutMs, onKeysUnavailable: (error) => failures.push(error.message) });
    assert.equal(reason(await check.identify(tokenOf(first))), 'unverifiable');
    return failures.join('\n');
  }

  test('discovery: the document must name the configured issuer, and a jwks_uri that is https or loopback http', async () => {
    server.serve('/a/.well-known/openid-configuration', { issuer: `${server.origin}/elsewhere`, jwks_uri: `${server.origin}/jwks` });
    assert.match(await failureOf(`${server.origin}/a`, ''), /does not name the issuer/);
    server.serve('/b/.well-known/openid-configuration', { issuer: `${server.origin}/b/`, jwks_uri: 'http://keys.example.com/jwks' });
    assert.match(await failureOf(`${server.origin}/b/`, ''), /has no jwks_uri that is an https/);
    server.serve('/c/.well-known/openid-configuration', { issuer: `${server.origin}/c`, jwks_uri: `${server.origin}/c/jwks` });
    server.serve('/c/jwks', { keys: [first.publicJwk] });
    const check = createTokenCheck({ issuer: `${server.origin}/c`, audience: AUDIENCE, jwksUrl: '' }, { requestTimeoutMs: 30_000 });
    const token = signJws({ alg: 'ES256', kid: 'first' }, { iss: `${server.origin}/c`, aud: AUDIENCE, sub: 'u', exp: Math.floor(Date.now() / 1000) + 60 }, first.privateKey);
    assert.equal(reason(await check.identify(token)), 'ok');
  });

  test('redirects, oversized documents, non-JSON and non-JWKS answers are failures', async () => {
    server.serve('/moved', '', 302, { location: `${server.origin}/jwks` });
    assert.match(await failureOf(ISSUER, `${server.origin}/moved`), /failed: .*redirect/i);
    server.serve('/huge', { keys: [], padding: 'x'.repeat(300 * 1024) });
    assert.match(await failureOf(ISSUER, `${server.origin}/huge`), /larger than 262144 bytes/);
    server.serve('/text', 'not json');
    assert.match(await failureOf(ISSUER, `${server.origin}/text`), /not JSON/);
    server.serve('/array', [first.publicJwk]);
    assert.match(await failureOf(ISSUER, `${server.origin}/array`), /not a JWK Set/);
  });

  test('a provider that never answers: the request waits a third of the request timeout, then 401 unverifiable', { timeout: 10_000 }, async () => {
    const started = performance.now();
    assert.match(await failureOf(ISSUER, `${hanging.origin}/jwks`, 900), /failed: .*(timeout|aborted)/i);
    const waited = performance.now() - started;
    assert.ok(waited >= 250 && waited < 900, `waited ${waited} ms, a request timeout of 900 ms`);
  });
});

import assert from 'node:assert/strict';
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { test } from 'node:test';
import type { Caller } from '../../src/callers/caller.ts';
import { Scope } from '../../src/callers/scopes.ts';
import { decodeBase64url } from '../../src/tokens/base64url.ts';
import { checkClaims, grantedScopes } from '../../src/tokens/claims.ts';
import { MAX_TOKEN_LENGTH, parseCompactJws } from '../../src/tokens/compact-jws.ts';
import { chooseKey, readKeySet } from '../../src/tokens/key-set.ts';
import { VerdictCache } from '../../src/tokens/verdict-cache.ts';
import { b64url, testKey } from '../support/jws-signer.ts';

test('base64url is read strictly: one spelling for each byte string', () => {
  assert.deepEqual(decodeBase64url('AQID'), Buffer.from([1, 2, 3]));
  assert.deepEqual(decodeBase64url('_-8'), Buffer.from([0xff, 0xef]));
  assert.deepEqual(decodeBase64url(''), Buffer.alloc(0));
  for (const bad of ['AQI=', 'AQ==', '+/8', 'AQ I', 'A', 'AQID\n', 'AR', '_-9']) assert.equal(decodeBase64url(bad), null, bad);
});

test('a token is read up to 8192 characters, and a longer one is malformed before anything is decoded', () => {
  const header = b64url(JSON.stringify({ alg: 'RS256', kid: 'k' }));
  const fill = (length: number): string => `${header}.${'A'.repeat(length - header.length - 2)}.`;
  assert.equal(typeof parseCompactJws(fill(MAX_TOKEN_LENGTH)), 'object');
  assert.equal(parseCompactJws(fill(MAX_TOKEN_LENGTH + 1)), 'malformed');
});

test('the header: typ at+jwt or JWT in any case, with or without application/, or none; a non-string kid is refused', () => {
  const withHeader = (header: Record<string, unknown>): unknown => parseCompactJws(`${b64url(JSON.stringify(header))}.e30.`);
  for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt', 'JWT', 'jwt', 'application/JWT', undefined]) {
    assert.equal(typeof withHeader({ alg: 'ES256', typ }), 'object', String(typ));
  }
  for (const typ of ['JOSE', 'dpop+jwt', 'at+jwt ', 'application/', 7]) assert.equal(withHeader({ alg: 'ES256', typ }), 'invalid', String(typ));
  assert.equal(withHeader({ alg: 'ES256', kid: 7 }), 'invalid');
  for (const alg of ['none', 'HS256', 'RS384', 'ES512', 'Ed25519', 'es256', undefined]) assert.equal(withHeader({ alg }), 'invalid', String(alg));
  assert.equal(parseCompactJws(`${b64url('[]')}.e30.`), 'malformed');
});

const EXPECTED = { issuer: 'https://id.example.com', audience: 'svc' };
const NOW = 1_800_000_000;
const base = { iss: EXPECTED.issuer, aud: 'svc', sub: 'u1', exp: NOW + 10 };

test('exp and nbf: at most 60 s of skew, to the second', () => {
  assert.equal(checkClaims({ ...base, exp: NOW - 59 }, EXPECTED, NOW).ok, true);
  assert.deepEqual(checkClaims({ ...base, exp: NOW - 60 }, EXPECTED, NOW), { ok: false, reason: 'expired' });
  assert.equal(checkClaims({ ...base, nbf: NOW + 60 }, EXPECTED, NOW).ok, true);
  assert.deepEqual(checkClaims({ ...base, nbf: NOW + 61 }, EXPECTED, NOW), { ok: false, reason: 'invalid' });
  const accepted = checkClaims(base, EXPECTED, NOW);
  assert.equal(accepted.ok && accepted.usableUntil, NOW + 70);
});

test('only an otherwise valid token learns it expired', () => {
  const old = { ...base, exp: NOW - 3600 };
  assert.deepEqual(checkClaims({ ...old, aud: 'other' }, EXPECTED, NOW), { ok: false, reason: 'invalid' });
  assert.deepEqual(checkClaims({ ...old, sub: undefined }, EXPECTED, NOW), { ok: false, reason: 'invalid' });
  assert.deepEqual(checkClaims({ ...old, nbf: NOW + 3600 }, EXPECTED, NOW), { ok: false, reason: 'invalid' });
  assert.deepEqual(checkClaims(old, EXPECTED, NOW), { ok: false, reason: 'expired' });
});

test('the caller: sub, client_id (else azp), scopes from scope (else scp) and roles, unknown names ignored', () => {
  const caller = (claims: Record<string, unknown>): Caller | null => {
    const verdict = checkClaims({ ...base, ...claims }, EXPECTED, NOW);
    return verdict.ok ? verdict.caller : null;
  };
  // expiresAt: the token's exp in ms, when a live stream of its caller ends.
  const expiresAt = base.exp * 1000;
  assert.deepEqual(caller({ client_id: 'c1', azp: 'a1', scope: 'admin read openid' }), { kind: 'token', id: 'u1', clientId: 'c1', scopes: [Scope.read, Scope.admin], expiresAt });
  assert.deepEqual(caller({ azp: 'a1' }), { kind: 'token', id: 'u1', clientId: 'a1', scopes: [], expiresAt });
  assert.deepEqual(caller({ client_id: 5 }), { kind: 'token', id: 'u1', scopes: [], expiresAt });
  assert.equal(caller({ sub: '' }), null);
  assert.deepEqual(grantedScopes({ scope: 'write', scp: ['admin'] }), [Scope.write]);
  assert.deepEqual(grantedScopes({ scp: ['read', 7, 'write', 'read'] }), [Scope.read, Scope.write]);
  assert.deepEqual(grantedScopes({ scp: 'read  write' }), [Scope.read, Scope.write]);
  assert.deepEqual(grantedScopes({ scope: ['admin'] }), [Scope.admin]);
  assert.deepEqual(grantedScopes({ scope: 7, scp: 'read' }), []);
  assert.deepEqual(grantedScopes({ scope: 'READ Write constructor toString' }), []);
  // Entra ID's app-only tokens: application permissions in `roles`, an array, added to any scope claim.
  assert.deepEqual(grantedScopes({ roles: ['write', 'Task.ReadWrite.All'] }), [Scope.write]);
  assert.deepEqual(grantedScopes({ scp: 'read', roles: ['admin'] }), [Scope.read, Scope.admin]);
  assert.deepEqual(grantedScopes({ roles: 'admin' }), []);
  assert.deepEqual(grantedScopes({ roles: ['Admin', 'ADMIN', 7] }), []);
});

test('verdicts: the exact token only, until it expires, least recently used dropped first', () => {
  const cache = new VerdictCache(2);
  const who = (id: string): Caller => ({ kind: 'token', id, scopes: [] });
  cache.set('token-a', who('a'), 100);
  assert.deepEqual(cache.get('token-a', 99), who('a'));
  assert.equal(cache.get('token-A', 99), undefined);
  assert.equal(cache.get('token-a', 100), undefined);
  assert.equal(cache.get('token-a', 1), undefined, 'an expired entry is dropped');
  cache.set('token-b', who('b'), 100);
  cache.set('token-c', who('c'), 100);
  cache.get('token-b', 1);
  cache.set('token-d', who('d'), 100);
  assert.deepEqual([cache.get('token-b', 1)?.id, cache.get('token-c', 1)?.id, cache.get('token-d', 1)?.id], ['b', undefined, 'd']);
  cache.clear();
  assert.equal(cache.get('token-b', 1), undefined);
});

const curveKey = (namedCurve: string): JsonWebKey => generateKeyPairSync('ec', { namedCurve }).publicKey.export({ format: 'jwk' });

test('key choice: a JWKS of objects only; a kid on two keys, on private material, or on a key of another type or curve is unfit', () => {
  const one = testKey('ES256', 'one');
  const twin = testKey('ES256', 'one');
  assert.equal(readKeySet({ keys: [one.publicJwk, 'x'] }), null);
  assert.equal(readKeySet([one.publicJwk]), null);
  const found = (jwks: unknown, kid: string | undefined): string => {
    const set = readKeySet(jwks);
    return set === null ? 'no set' : chooseKey(set, 'ES256', kid).kind;
  };
  assert.equal(found({ keys: [one.publicJwk] }, 'one'), 'found');
  assert.equal(found({ keys: [one.publicJwk] }, undefined), 'found');
  assert.equal(found({ keys: [one.publicJwk, twin.publicJwk] }, 'one'), 'unfit');
  assert.equal(found({ keys: [one.privateJwk] }, 'one'), 'unfit');
  assert.equal(found({ keys: [{ ...one.publicJwk, x: 'AAAA' }] }, 'one'), 'unfit');
  assert.equal(found({ keys: [{ ...one.publicJwk, crv: 'P-384' }] }, 'one'), 'unfit');
  assert.equal(found({ keys: [one.publicJwk] }, 'two'), 'absent');
  const set = readKeySet({ keys: [one.publicJwk, { ...curveKey('secp384r1'), kid: 'p384' }, { ...generateKeyPairSync('ed448').publicKey.export({ format: 'jwk' }), kid: 'ed448' }] });
  assert.ok(set !== null);
  assert.equal(chooseKey(set, 'RS256', 'one').kind, 'unfit', 'an EC key for RS256');
  assert.equal(chooseKey(set, 'ES256', 'p384').kind, 'unfit', 'a P-384 key for ES256');
  assert.equal(chooseKey(set, 'EdDSA', 'ed448').kind, 'unfit', 'an Ed448 key for EdDSA (Ed25519 only)');
  assert.equal(found({ keys: [] }, undefined), 'absent');
});

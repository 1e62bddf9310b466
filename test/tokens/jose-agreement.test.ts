import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { type Identified, NOT_VALID } from '../../src/callers/caller.ts';
import { createTokenCheck } from '../../src/tokens/token-check.ts';
import { type DocumentServer, startDocumentServer } from '../support/document-server.ts';
import { type TestKey, testKey } from '../support/jws-signer.ts';
import { attackCases, type TokenCase } from './attack-cases.ts';

// Every token, valid and hostile, through the service's verifier and through jose's jwtVerify with the
// same JWKS, issuer, audience, algorithms and clock tolerance: both must reach the same verdict, except
// where a case names why the service chose differently.
const ISSUER = 'https://id.example.com/realms/acme';
const AUDIENCE = 'https://api.svc.test/';
const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const JOSE_OPTIONS = { issuer: ISSUER, audience: AUDIENCE, algorithms: ALGORITHMS, clockTolerance: 60, requiredClaims: ['exp', 'sub'] };

const keys = {
  rsa: testKey('RS256', 'rsa'),
  ec: testKey('ES256', 'ec'),
  ed: testKey('EdDSA', 'ed'),
  rsaSmall: testKey('RS256', 'rsa-small', {}, 1024),
  rsaForEncryption: testKey('RS256', 'rsa-enc', { use: 'enc' }),
  rsaForRs256Only: testKey('RS256', 'rsa-rs256', { alg: 'RS256' }),
  ecSignOnly: testKey('ES256', 'ec-sign-only', { key_ops: ['sign'] }),
} satisfies Record<string, TestKey>;
const JWKS = { keys: Object.values(keys).map((key) => key.publicJwk) };

type Verdict = 'accept' | 'reject';

async function joseVerdict(token: string): Promise<Verdict> {
  try {
    await jwtVerify(token, createLocalJWKSet(JWKS), JOSE_OPTIONS);
    return 'accept';
  } catch {
    return 'reject';
  }
}

describe('the access-token verifier agrees with jose on every token, the attack tokens included', () => {
  let server: DocumentServer;
  let identify: (token: string) => Identified | Promise<Identified>;
  const cases: TokenCase[] = [];
  before(async () => {
    server = await startDocumentServer();
    server.serve('/jwks', JWKS);
    identify = createTokenCheck({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: `${server.origin}/jwks` }, { requestTimeoutMs: 30_000 }).identify;
    cases.push(...attackCases({ issuer: ISSUER, audience: AUDIENCE, keys, now: Math.floor(Date.now() / 1000) }));
  });
  after(async () => {
    await server.stop();
  });

  test("each case: the service's verdict and reason, and jose's verdict", async (t) => {
    for (const one of cases) {
      await t.test(one.name, async () => {
        const ours = await identify(one.token);
        const jose = await joseVerdict(one.token);
        if (one.expect === 'accept') {
          assert.equal(ours.ok, true, `${one.name}: ${JSON.stringify(ours)}`);
          if (ours.ok && one.scopes !== undefined) assert.deepEqual(ours.caller.scopes, one.scopes);
          // Once verified, the same token is known at once: synchronously, to the same caller.
          assert.deepEqual(identify(one.token), ours);
        } else {
          assert.deepEqual(ours, { ok: false, refusal: { reason: one.expect, detail: one.expect === 'expired' ? 'The access token has expired.' : NOT_VALID } }, one.name);
        }
        const ourVerdict: Verdict = ours.ok ? 'accept' : 'reject';
        const joseExpected: Verdict = one.joseDiffers === undefined ? ourVerdict : ourVerdict === 'accept' ? 'reject' : 'accept';
        assert.equal(jose, joseExpected, `${one.name}: jose ${jose}, service ${ourVerdict}${one.joseDiffers === undefined ? '' : ` (expected to differ: ${one.joseDiffers})`}`);
      });
    }
  });
});

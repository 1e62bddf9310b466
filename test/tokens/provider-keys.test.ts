import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/assertions.ts';
import { startDocumentServer } from '../support/document-server.ts';
import { API_AUDIENCE, type IdentityProvider, startIdentityProvider } from '../support/identity-provider.ts';
import { signJws, testKey } from '../support/jws-signer.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// The issuer's keys seen from outside: a real provider rotates its key, a flood of unknown kids meets
// the 30 s cooldown, and the provider goes down. These tests concern the token check and the provider
// only (no rule of theirs touches the database), so they run once, on SQLite; the 401/403 rules, the
// rate limit and the log run on both engines in test/http/access-tokens.test.ts.
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const attacker = testKey('RS256', 'attacker');

async function status(server: TestServer, token: string): Promise<number> {
  const response = await fetch(`${server.url}/api/products`, { headers: as(token) });
  await response.arrayBuffer();
  return response.status;
}

// Hand-signed tokens whose kids the issuer never published, sent 25 at a time.
async function floodOfUnknownKids(server: TestServer, issuer: string, count: number): Promise<Set<number>> {
  const exp = Math.floor(Date.now() / 1000) + 300;
  const statuses = new Set<number>();
  for (let sent = 0; sent < count; sent += 25) {
    const batch = Array.from({ length: 25 }, (_, i) => signJws({ alg: 'RS256', kid: `unknown-${sent + i}` }, { iss: issuer, aud: API_AUDIENCE, sub: 'x', exp }, attacker.privateKey));
    for (const code of await Promise.all(batch.map((token) => status(server, token)))) statuses.add(code);
  }
  return statuses;
}

describe('a real provider rotates its signing key, and the service follows without a restart', () => {
  let provider: IdentityProvider;
  let server: TestServer;
  before(async () => {
    provider = await startIdentityProvider('RS256');
    // Should the service not start, the provider stops too: left listening, it would keep the run alive.
    server = await startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE }).catch(async (error: unknown) => {
      await provider.stop();
      throw error;
    });
  });
  after(async () => {
    await server.stop();
    await provider.stop();
  });

  test('discovery, one JWKS fetch; after the rotation the new key is fetched once, 30 s after the first, not sooner', async () => {
    const beforeFirstFetch = performance.now();
    const oldToken = await provider.token('robot-1', 'read');
    assert.equal(await status(server, oldToken), 200);
    assert.deepEqual([provider.requests('/.well-known/openid-configuration'), provider.requests('/jwks')], [1, 1]);

    provider.rotate('RS256');
    const newToken = await provider.token('robot-1', 'read');
    assert.equal(await status(server, newToken), 401, 'the new kid within 30 s of the last fetch');
    assert.deepEqual(await floodOfUnknownKids(server, provider.issuer, 1000), new Set([401]));
    assert.equal(provider.requests('/jwks'), 1, '1,000 unknown kids and the new one: no fetch within the cooldown');
    assert.equal(await status(server, oldToken), 200, 'the old key is still published and held');

    await eventually('the new key accepted', async () => (await status(server, newToken)) === 200, 45_000, 200);
    assert.ok(performance.now() - beforeFirstFetch >= 30_000, 'not before 30 s after the first fetch');
    assert.equal(provider.requests('/jwks'), 2, 'one fetch in 30 s of asking five times a second');
    assert.deepEqual(await floodOfUnknownKids(server, provider.issuer, 200), new Set([401]));
    assert.equal(provider.requests('/jwks'), 2);
    assert.equal(await status(server, await provider.token('robot-2', 'read')), 200);
    assert.equal(provider.requests('/.well-known/openid-configuration'), 1, 'the discovered JWKS URL is kept');
  });

  test('the provider goes down: tokens of held keys keep working, others get 401, none a 500', async () => {
    const fresh = await provider.token('robot-2', 'read');
    await provider.stop();
    assert.equal(await status(server, fresh), 200);
    const exp = Math.floor(Date.now() / 1000) + 300;
    assert.equal(await status(server, provider.sign({ iss: provider.issuer, aud: API_AUDIENCE, sub: 'signed-while-down', exp, scope: 'read' })), 200);
    assert.deepEqual(await floodOfUnknownKids(server, provider.issuer, 100), new Set([401]));
  });
});

describe('a provider that cannot be reached: 401, never 500 and never a hang', () => {
  test('down from the start: every token is 401, and the log says why', async () => {
    const provider = await startIdentityProvider('ES256');
    const token = await provider.token('robot-1', 'read');
    await provider.stop();
    const server = await startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE });
    try {
      const response = await fetch(`${server.url}/api/products`, { headers: as(token) });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token", error_description="The credential is not valid."');
      server.app.logger.flush();
      const warning = server.logs.find((line) => line['msg'] === 'access-token keys could not be fetched; tokens signed by keys already held still work');
      assert.match(String(warning?.['reason']), /openid-configuration failed/);
    } finally {
      await server.stop();
    }
  });

  test('a JWKS URL that never answers: the request is answered 401 within a third of SVC_REQUEST_TIMEOUT_MS', async () => {
    const hanging = await startDocumentServer();
    hanging.hang();
    const issuer = 'https://id.example.com';
    const server = await startTestServer({
      SVC_AUTH: 'jwt',
      SVC_JWT_ISSUER: issuer,
      SVC_JWT_AUDIENCE: API_AUDIENCE,
      SVC_JWT_JWKS_URL: `${hanging.origin}/jwks`,
      SVC_REQUEST_TIMEOUT_MS: '1500',
      SVC_HEADERS_TIMEOUT_MS: '1500',
    });
    try {
      const token = signJws({ alg: 'RS256', kid: 'k' }, { iss: issuer, aud: API_AUDIENCE, sub: 'x', exp: Math.floor(Date.now() / 1000) + 60 }, attacker.privateKey);
      const started = performance.now();
      assert.equal(await status(server, token), 401);
      const waited = performance.now() - started;
      assert.ok(waited >= 400 && waited < 1500, `answered after ${waited} ms`);
    } finally {
      await server.stop();
      await hanging.stop();
    }
  });

  test('with the default SVC_REQUEST_TIMEOUT_MS (30 s) the wait is capped at 5 s, not a third (10 s)', { timeout: 20_000 }, async () => {
    const hanging = await startDocumentServer();
    hanging.hang();
    const issuer = 'https://id.example.com';
    const server = await startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: issuer, SVC_JWT_AUDIENCE: API_AUDIENCE, SVC_JWT_JWKS_URL: `${hanging.origin}/jwks` });
    try {
      assert.equal(server.config.requestTimeoutMs, 30_000, 'the default');
      const token = signJws({ alg: 'RS256', kid: 'k' }, { iss: issuer, aud: API_AUDIENCE, sub: 'x', exp: Math.floor(Date.now() / 1000) + 60 }, attacker.privateKey);
      const started = performance.now();
      assert.equal(await status(server, token), 401);
      const waited = performance.now() - started;
      // 5 s and some for a loaded machine; a third of the request timeout would be 10 s.
      assert.ok(waited >= 4_000 && waited < 7_000, `answered after ${waited} ms`);
    } finally {
      await server.stop();
      await hanging.stop();
    }
  });
});

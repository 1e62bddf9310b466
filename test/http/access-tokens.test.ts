import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_AUDIENCE, type IdentityProvider, startIdentityProvider } from '../support/identity-provider.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';

// SVC_AUTH=jwt end to end: the service discovers a real OpenID Connect provider (oidc-provider on a
// loopback port) and takes the access tokens it issues by the client-credentials grant.
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

// Should the service not start, the provider stops too: left listening, it would keep the run alive.
async function serveWith(provider: IdentityProvider, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE, ...env }).catch(async (error: unknown) => {
    await provider.stop();
    throw error;
  });
}

describe('access tokens from a real provider: who may do what', () => {
  let provider: IdentityProvider;
  let server: TestServer;
  before(async () => {
    provider = await startIdentityProvider('ES256');
    server = await serveWith(provider);
  });
  after(async () => {
    await server.stop();
    await provider.stop();
  });

  test('no token: 401 with a bare Bearer challenge; the open endpoints need none', async () => {
    const response = await fetch(`${server.url}/api/products`);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
    assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
    assert.equal((await fetch(`${server.url}/api/openapi.json`)).status, 200);
  });

  test('a token that is not valid: 401 invalid_token, which says nothing of why', async () => {
    const real = await provider.token('robot-1', 'read');
    const [header, payload, signature] = real.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), scope: 'admin' })).toString('base64url')}.${signature}`;
    for (const token of [forged, 'not-a-jwt', `${header}.${payload}.`]) {
      const response = await fetch(`${server.url}/api/products`, { headers: as(token) });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token", error_description="The credential is not valid."');
      assert.equal(((await response.json()) as { detail: string }).detail, 'The credential is not valid.');
    }
  });

  test('a validly signed token past its exp (beyond the skew) is told it expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = provider.sign({ iss: provider.issuer, aud: API_AUDIENCE, sub: 'robot-1', exp: now - 120, scope: 'read' });
    const response = await fetch(`${server.url}/api/products`, { headers: as(expired) });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token", error_description="The access token has expired."');
  });

  test('an app-only token as Entra ID sends it: its scopes in roles, not scp; only the exact names count', async () => {
    const now = Math.floor(Date.now() / 1000);
    const appOnly = (roles: unknown): string => provider.sign({ iss: provider.issuer, aud: API_AUDIENCE, sub: 'daemon-7', azp: 'daemon', exp: now + 300, roles });
    const created = await postJson(`${server.url}/api/products`, { name: 'by an app role', priceInCents: 1 }, as(appOnly(['Task.Read', 'write'])));
    assert.equal(created.status, 201);
    for (const roles of [['Write', 'Task.Write'], 'write']) {
      const refused = await postJson(`${server.url}/api/products`, { name: 'refused', priceInCents: 1 }, as(appOnly(roles)));
      assert.equal(refused.status, 403, JSON.stringify(roles));
    }
  });

  test('read: lists and reads; writing is 403 insufficient_scope and changes nothing', async () => {
    const writer = await provider.token('robot-1', 'read write');
    const created = await postJson(`${server.url}/api/products`, { name: 'tokened', priceInCents: 5 }, as(writer));
    assert.equal(created.status, 201);
    const location = created.headers.get('location') ?? '';
    const reader = await provider.token('robot-1', 'read billing:read');
    assert.equal((await fetch(`${server.url}/api/products`, { headers: as(reader) })).status, 200);
    assert.equal((await fetch(`${server.url}${location}`, { headers: as(reader) })).status, 200);
    assert.equal((await fetch(`${server.url}/api/products`, { method: 'HEAD', headers: as(reader) })).status, 200);
    const rows = await server.database.countRows('products');
    const refusals = [
      await postJson(`${server.url}/api/products`, { name: 'no', priceInCents: 1 }, as(reader)),
      await patchJson(`${server.url}${location}`, { name: 'renamed' }, as(reader)),
      await fetch(`${server.url}${location}`, { method: 'DELETE', headers: as(reader) }),
    ];
    for (const response of refusals) {
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="write"');
      assert.equal(((await response.json()) as { code: string }).code, 'forbidden');
    }
    assert.equal(await server.database.countRows('products'), rows);
    assert.equal(((await (await fetch(`${server.url}${location}`, { headers: as(reader) })).json()) as { name: string }).name, 'tokened');
  });

  test('write and admin: every operation; a token with none of the service scopes: 403 even to read', async () => {
    for (const scope of ['write', 'admin']) {
      const token = await provider.token('robot-2', scope);
      const created = await postJson(`${server.url}/api/products`, { name: `by ${scope}`, priceInCents: 1 }, as(token));
      assert.equal(created.status, 201, scope);
      const location = created.headers.get('location') ?? '';
      assert.equal((await fetch(`${server.url}${location}`, { headers: as(token) })).status, 200, scope);
      assert.equal((await patchJson(`${server.url}${location}`, { name: 'renamed' }, as(token))).status, 200, scope);
      assert.equal((await fetch(`${server.url}${location}`, { method: 'DELETE', headers: as(token) })).status, 204, scope);
    }
    const foreign = await provider.token('robot-2', 'billing:read');
    const response = await fetch(`${server.url}/api/products`, { headers: as(foreign) });
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="read"');
  });

  test('the access log names the token\'s sub and client_id, never the token', async () => {
    const token = await provider.token('robot-2', 'read');
    await (await fetch(`${server.url}/api/products?limit=1&who=robot`, { headers: as(token) })).arrayBuffer();
    server.app.logger.flush();
    const line = server.logs.find((entry) => (entry['req'] as { url?: string } | undefined)?.url === '/api/products?limit=1&who=robot');
    assert.deepEqual(line?.['caller'], { kind: 'token', id: 'robot-2', clientId: 'robot-2' });
    const signature = token.split('.')[2] ?? '';
    assert.doesNotMatch(JSON.stringify(server.logs), new RegExp(signature.slice(0, 20)));
  });
});

describe('the rate limit with access tokens counts per sub', () => {
  let provider: IdentityProvider;
  let server: TestServer;
  before(async () => {
    provider = await startIdentityProvider('RS256');
    server = await serveWith(provider, { SVC_RATE_LIMIT: '3' });
  });
  after(async () => {
    await server.stop();
    await provider.stop();
  });

  test('two tokens of one sub share a limit; another sub has its own', async () => {
    const first = await provider.token('robot-1', 'read');
    const second = await provider.token('robot-1', 'read write');
    assert.notEqual(first, second);
    const list = async (token: string): Promise<number> => {
      const response = await fetch(`${server.url}/api/products`, { headers: as(token) });
      await response.arrayBuffer();
      return response.status;
    };
    assert.deepEqual([await list(first), await list(second), await list(first), await list(second)], [200, 200, 200, 429]);
    assert.equal(await list(await provider.token('robot-2', 'read')), 200);
  });
});

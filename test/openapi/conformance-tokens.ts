import assert from 'node:assert/strict';
import { API_AUDIENCE, clientCredentialsToken, type IdentityProvider, startIdentityProvider } from '../support/identity-provider.ts';
import { bearer } from '../support/keys.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/server.ts';

// SVC_AUTH=jwt in the conformance run: a real OpenID Connect provider (oidc-provider), the service
// pointed at it, the access tokens it issues by the client-credentials grant, and the tokens that are
// not good enough. Every token the provider can issue comes from it; only an expired one is signed here.

/** A valid credential of each scope; `none` grants none of the service's scopes (null with keys: every key holds one). */
export interface ScopedCredentials {
  none: string | null;
  read: string;
  write: string;
  admin: string;
}

/** The service with SVC_AUTH=jwt, the provider it trusts, and a token of each scope that provider issued. */
export interface JwtServer {
  server: TestServer;
  provider: IdentityProvider;
  tokens: ScopedCredentials;
}

/** A credential header that is refused, and the challenge its 401 must carry. */
export type RefusedCredential = [Record<string, string>, RegExp];

// Another resource server of the same provider: its tokens are valid, for someone else.
const OTHER_AUDIENCE = 'https://other.svc.test/';
const NOT_VALID = /^Bearer error="invalid_token", error_description="The credential is not valid\."$/;
const EXPIRED = /^Bearer error="invalid_token", error_description="The access token has expired\."$/;

/** Starts a provider, takes its tokens, then starts the service with `env` and SVC_AUTH=jwt trusting it. */
export async function startJwtServer(env: Record<string, string>, options: TestServerOptions = {}): Promise<JwtServer> {
  const provider = await startIdentityProvider('ES256');
  try {
    const tokens = {
      none: await provider.token('robot-2', 'billing:read'),
      read: await provider.token('robot-1', 'read'),
      write: await provider.token('robot-1', 'write'),
      admin: await provider.token('robot-1', 'admin'),
    };
    const server = await startTestServer({ ...env, SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE }, options);
    return { server, provider, tokens };
  } catch (error) {
    // Left listening, the provider would keep the run alive.
    await provider.stop();
    throw error;
  }
}

// A real token of another provider: another issuer, signed by a key the service does not trust.
async function anotherIssuersToken(): Promise<string> {
  const stranger = await startIdentityProvider('ES256');
  try {
    return await stranger.token('robot-1', 'admin');
  } finally {
    await stranger.stop();
  }
}

// The provider issues no expired token, so this one is signed with its key: past exp beyond the 60 s skew.
function expiredToken(provider: IdentityProvider): string {
  const now = Math.floor(Date.now() / 1000);
  return provider.sign({ iss: provider.issuer, aud: API_AUDIENCE, sub: 'robot-1', client_id: 'robot-1', iat: now - 900, exp: now - 600, scope: 'admin' });
}

/**
 * Every access token that is not good enough, with its challenge: none, another scheme, a malformed
 * one, one whose payload was changed or whose signature was dropped, an expired one, one of another
 * issuer and one for another audience.
 */
export async function refusedTokens(provider: IdentityProvider): Promise<RefusedCredential[]> {
  const [header = '', payload = '', signature = ''] = (await provider.token('robot-1', 'read')).split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const escalated = Buffer.from(JSON.stringify({ ...claims, scope: 'admin' })).toString('base64url');
  return [
    [{}, /^Bearer$/],
    [{ authorization: 'Basic cm9ib3QtMTpzZWNyZXQ=' }, /^Bearer$/],
    [bearer('not-a-jwt'), NOT_VALID],
    [{ authorization: 'Bearer two words' }, NOT_VALID],
    [bearer(`${header}.${escalated}.${signature}`), NOT_VALID],
    [bearer(`${header}.${payload}.`), NOT_VALID],
    [bearer(expiredToken(provider)), EXPIRED],
    [bearer(await anotherIssuersToken()), NOT_VALID],
    [bearer(await provider.token('robot-1', 'admin', OTHER_AUDIENCE)), NOT_VALID],
  ];
}

/**
 * Follows the directions to a token that `document`'s scheme gives, as a client would: the discovery
 * document at the URL it names, that document's token endpoint, the client-credentials grant for the
 * audience it names. Returns the token, which the service must take.
 */
export async function tokenByTheDocument(document: Record<string, unknown>, provider: IdentityProvider): Promise<string> {
  const schemes = (document['components'] as Record<string, Record<string, Record<string, string>>>)['securitySchemes'];
  const scheme = schemes?.['accessToken'] ?? {};
  assert.deepEqual([scheme['type'], scheme['scheme'], scheme['bearerFormat']], ['http', 'bearer', 'JWT']);
  const [, issuer, audience] = /provider `([^`]+)`, issued for the audience `([^`]+)`/.exec(scheme['description'] ?? '') ?? [];
  assert.deepEqual([issuer, audience], [provider.issuer, API_AUDIENCE]);
  const discoveryUrl = /`(\S+\/\.well-known\/openid-configuration)`/.exec(scheme['description'] ?? '')?.[1] ?? '';
  const discovered = await fetch(discoveryUrl);
  assert.equal(discovered.status, 200, discoveryUrl);
  const configuration = (await discovered.json()) as { issuer: string; token_endpoint: string; grant_types_supported: string[] };
  assert.equal(configuration.issuer, issuer);
  assert.ok(configuration.grant_types_supported.includes('client_credentials'));
  return clientCredentialsToken(configuration.token_endpoint, 'robot-2', 'write', audience ?? '');
}

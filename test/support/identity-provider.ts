import Provider from 'oidc-provider';
import { startCountingServer } from './counting-server.ts';
import { type SigningAlgorithm, signJws, type TestKey, testKey } from './jws-signer.ts';

/** The clients of the test provider, each allowed every scope it knows. */
export const CLIENTS = ['robot-1', 'robot-2'] as const;
export type ClientId = (typeof CLIENTS)[number];
/** The API's resource indicator, also the `aud` of its tokens (SVC_JWT_AUDIENCE). */
export const API_AUDIENCE = 'https://api.svc.test/';
const CLIENT_SECRET = 'a-client-secret-of-the-test-provider';
const SCOPES = 'read write admin billing:read';

/** A real OpenID Connect provider (oidc-provider) on a loopback port, issuing JWT access tokens for the API. */
export interface IdentityProvider {
  /** Its issuer URL, `http://127.0.0.1:<port>` (SVC_JWT_ISSUER). */
  readonly issuer: string;
  /** The key it signs access tokens with now. */
  readonly signingKey: TestKey;
  /** How many requests it has answered for `path` (e.g. `/jwks`). */
  requests(path: string): number;
  /**
   * An access token by the client-credentials grant (RFC 6749 §4.4), for the resource (RFC 8707) and
   * `aud` `resource`: the API's unless another is named.
   */
  token(client: ClientId, scope: string, resource?: string): Promise<string>;
  /** A token signed with its current key, with any header and claims: for the attack cases only. */
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): string;
  /** Starts signing with a new key of `alg`, published beside the old ones (a provider's key rotation). */
  rotate(alg: SigningAlgorithm): TestKey;
  /** Stops answering: the port is closed and open connections are cut. */
  stop(): Promise<void>;
}

// oidc-provider's state (grants, tokens) in a Map: its own memory adapter would warn on every start.
class MapAdapter {
  static readonly store = new Map<string, Record<string, unknown>>();
  readonly #model: string;
  constructor(model: string) {
    this.#model = model;
  }
  async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
    MapAdapter.store.set(`${this.#model}:${id}`, payload);
  }
  async find(id: string): Promise<Record<string, unknown> | undefined> {
    return MapAdapter.store.get(`${this.#model}:${id}`);
  }
  async findByUid(): Promise<undefined> {}
  async findByUserCode(): Promise<undefined> {}
  async consume(): Promise<void> {}
  async destroy(id: string): Promise<void> {
    MapAdapter.store.delete(`${this.#model}:${id}`);
  }
  async revokeByGrantId(): Promise<void> {}
}

/** An access token from the token endpoint `tokenEndpoint` of the test provider, by the client-credentials grant. */
export async function clientCredentialsToken(tokenEndpoint: string, client: ClientId, scope: string, resource: string): Promise<string> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client}:${CLIENT_SECRET}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || body.access_token === undefined) throw new Error(`the provider refused a token: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

function providerFor(issuer: string, keys: readonly TestKey[]): Provider {
  const signing = keys[0] as TestKey;
  return new Provider(issuer, {
    adapter: MapAdapter,
    clients: CLIENTS.map((client_id) => ({ client_id, client_secret: CLIENT_SECRET, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPES, id_token_signed_response_alg: signing.alg })),
    scopes: SCOPES.split(' '),
    jwks: { keys: keys.map((key) => ({ ...key.privateJwk, use: 'sig' })) },
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_AUDIENCE,
        useGrantedResource: () => true,
        // Every resource asked for is a resource server of its own, its URL the audience of its tokens.
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({ scope: SCOPES, audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: signing.alg, kid: signing.kid } } }),
      },
    },
  });
}

/** Starts the provider signing with a new key of `alg`. */
export async function startIdentityProvider(alg: SigningAlgorithm = 'RS256'): Promise<IdentityProvider> {
  const server = await startCountingServer();
  const issuer = server.origin;
  let keys = [testKey(alg, 'key-1')];
  // A rotation is a new configuration of the same provider at the same address, as a real one restarts.
  const configure = (): void => server.handle(providerFor(issuer, keys).callback());
  configure();
  return {
    issuer,
    get signingKey() {
      return keys[0] as TestKey;
    },
    requests: server.requests,
    token: (client, scope, resource = API_AUDIENCE) => clientCredentialsToken(`${issuer}/token`, client, scope, resource),
    sign(claims, header = {}) {
      const key = keys[0] as TestKey;
      return signJws({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header }, claims, key.privateKey);
    },
    rotate(next) {
      keys = [testKey(next, `key-${keys.length + 1}`), ...keys];
      configure();
      return keys[0] as TestKey;
    },
    stop: server.stop,
  };
}

import assert from 'node:assert/strict';
import type { RawResponse } from '../support/raw-http.ts';
import type { ApiKeyRequest } from '../../src/api-keys.ts';
import type { Resource } from '../../src/resources/resource.ts';
import type { IdentityProvider } from '../support/identity-provider.ts';
import { bearer, type MadeKey, makeKey } from '../support/keys.ts';
import type { VersionView } from '../../src/versions/api-versions.ts';
import { ALL_RESOURCES, DEFAULT_VERSION } from '../support/resources.ts';
import { ConformanceChecker } from '../support/schema-conformance.ts';
import { patchJson, postJson, startTestServer, type TestServer } from '../support/server.ts';
import { type ScopedCredentials, startJwtServer } from './conformance-tokens.ts';

// One real server in one mode, the document it serves, and what the conformance tests met of it.
type Json = Record<string, unknown>;
type HeaderFields = Record<string, string>;

/** The modes the conformance tests run a server in: SVC_AUTH off (with SVC_API_TOKEN: `token`), keys and jwt. */
export type ConformanceMode = 'off' | 'token' | 'keys' | 'jwt';

/** The one token of SVC_API_TOKEN in mode `token`. */
export const TOKEN = 'conformance-token-0123456789';

/** Keys of each scope, made by the admin (mode `keys`). */
export interface ScopedKeys {
  read: MadeKey;
  write: MadeKey;
  admin: MadeKey;
}

/** The items of a list answer, whichever shape the run's API version gives a list. */
export function itemsOf(page: unknown): Json[] {
  return (Array.isArray(page) ? page : (page as { data: Json[] }).data) as Json[];
}

/**
 * A server in one mode and one API version (the default, the first, unless named: the server then runs
 * with SVC_API_VERSION at that version), with the requests of the tests and the checker that remembers
 * what was met.
 */
export class ConformanceRun {
  readonly mode: ConformanceMode;
  /** The API version every request of the run is answered in: its bodies are made in it. */
  readonly version: VersionView;
  /** Every resource the server serves: the service's, and the throwaway one without a `name`. */
  readonly resources: readonly Resource[] = ALL_RESOURCES;
  #server: TestServer | null = null;
  #checker: ConformanceChecker | null = null;
  #admin: MadeKey | null = null;
  #keys: ScopedKeys | null = null;
  #provider: IdentityProvider | null = null;
  #credentials: ScopedCredentials | null = null;
  /** Codes of the `errors` of every problem met, by where they point: a body member or a parameter. */
  readonly fieldCodes = new Set<string>();
  readonly parameterCodes = new Set<string>();

  constructor(mode: ConformanceMode, version: VersionView = DEFAULT_VERSION) {
    this.mode = mode;
    this.version = version;
  }

  async start(): Promise<void> {
    // Webhooks to receivers on 127.0.0.1 (conformance-webhooks.ts), so no delivery leaves the machine.
    // Every request that names no version (none does) gets the run's.
    const env = { SVC_BODY_LIMIT_BYTES: '1024', SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_API_VERSION: this.version.id };
    const served = { resources: this.resources };
    if (this.mode === 'keys') {
      // As startKeysServer (test/support/keys.ts) does, on a server of every resource: the first admin key made on its database.
      this.#server = await startTestServer({ ...env, SVC_AUTH: 'keys' }, served);
      // Pinned to the run's version, as are the keys it makes (a key made over HTTP pins the request's version).
      const admin = await makeKey(this.#server.database, { name: 'first admin', scopes: ['admin'], apiVersion: this.version.id });
      this.#admin = admin;
      const [read, write] = [await this.newKey({ name: 'reader', scopes: ['read'] }), await this.newKey({ name: 'writer', scopes: ['write'] })];
      this.#keys = { read, write, admin };
      this.#credentials = { none: null, read: read.key, write: write.key, admin: admin.key };
    } else if (this.mode === 'jwt') {
      const { server, provider, tokens } = await startJwtServer(env, served);
      this.#server = server;
      this.#provider = provider;
      this.#credentials = tokens;
    } else {
      this.#server = await startTestServer(this.mode === 'token' ? { ...env, SVC_API_TOKEN: TOKEN } : env, served);
    }
    const document = await fetch(`${this.url}/api/openapi.json`);
    assert.equal(document.status, 200, `${this.mode}: the document is open`);
    this.#checker = new ConformanceChecker(await document.json(), this.version.id);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.#provider?.stop();
  }

  get server(): TestServer {
    assert.ok(this.#server !== null, 'the server has not started');
    return this.#server;
  }

  get url(): string {
    return this.server.url;
  }

  get checker(): ConformanceChecker {
    assert.ok(this.#checker !== null, 'the server has not started');
    return this.#checker;
  }

  /** The document the server serves. */
  get document(): Json {
    return this.checker.document as Json;
  }

  /** Keys of each scope (mode `keys` only). */
  get keys(): ScopedKeys {
    assert.ok(this.#keys !== null, 'scoped keys exist in mode keys only');
    return this.#keys;
  }

  /** Whether callers are identified and hold scopes (keys, jwt), so that 403 can answer. */
  get scoped(): boolean {
    return this.mode === 'keys' || this.mode === 'jwt';
  }

  /** A valid credential of each scope (modes `keys` and `jwt`). */
  get credentials(): ScopedCredentials {
    assert.ok(this.#credentials !== null, 'scoped credentials exist in modes keys and jwt only');
    return this.#credentials;
  }

  /** The provider the service trusts (mode `jwt` only). */
  get provider(): IdentityProvider {
    assert.ok(this.#provider !== null, 'a provider is trusted in mode jwt only');
    return this.#provider;
  }

  /** Makes a key over HTTP with the admin key (mode `keys` only); rejects unless the answer is 201. */
  async newKey(request: ApiKeyRequest): Promise<MadeKey> {
    assert.ok(this.#admin !== null, 'keys are made in mode keys only');
    const response = await postJson(`${this.url}/api/keys`, request, bearer(this.#admin.key));
    assert.equal(response.status, 201, `POST /api/keys: ${await response.clone().text()}`);
    return (await response.json()) as MadeKey;
  }

  /**
   * The Authorization a request needs to pass in this mode: the admin key with keys (the keys endpoints
   * need it); with jwt the least token that suffices, `read` to read and `write` to change; the token on writes with a token.
   */
  auth(method: string): HeaderFields {
    const reads = method === 'GET' || method === 'HEAD';
    if (this.mode === 'keys') return bearer(this.keys.admin.key);
    if (this.mode === 'jwt') return bearer(reads ? this.credentials.read : this.credentials.write);
    if (this.mode === 'token' && !reads) return bearer(TOKEN);
    return {};
  }

  get(path: string, init: { method?: string; headers?: HeaderFields } = {}): Promise<Response> {
    const method = init.method ?? 'GET';
    return fetch(`${this.url}${path}`, { method, headers: { ...this.auth(method), ...init.headers } });
  }

  post(path: string, body: unknown, headers: HeaderFields = {}): Promise<Response> {
    return postJson(`${this.url}${path}`, body, { ...this.auth('POST'), ...headers });
  }

  patch(path: string, body: unknown, headers: HeaderFields = {}): Promise<Response> {
    return patchJson(`${this.url}${path}`, body, { ...this.auth('PATCH'), ...headers });
  }

  remove(path: string, headers: HeaderFields = {}): Promise<Response> {
    return fetch(`${this.url}${path}`, { method: 'DELETE', headers: { ...this.auth('DELETE'), ...headers } });
  }

  /** Checks `res` against the operation `method` `pattern`, asserts its status, and notes its error codes. */
  async expectStatus(method: string, pattern: string, res: Response | Promise<Response>, status: number): Promise<Json> {
    const checked = await this.checker.check(method, pattern, await res);
    assert.equal(checked.status, status, `${this.mode}: ${method} ${pattern}`);
    for (const entry of ((checked.body as Json | undefined)?.['errors'] as Json[] | undefined) ?? []) {
      (entry['pointer'] !== undefined ? this.fieldCodes : this.parameterCodes).add(String(entry['code']));
    }
    return checked.body as Json;
  }
}

/** A raw HTTP/1.1 response as a fetch Response, so the checker can read it. */
export function responseOf(raw: RawResponse): Response {
  return new Response(raw.body, { status: raw.status, headers: raw.headers });
}

// Manages API keys with the typed client of client.ts, against the types of the keys document
// (SVC_AUTH=keys, the only one with the keys endpoints): makes, lists, reads and revokes a key, and
// meets 403 and 401 as the document types them. test/openapi/generated-types.test.ts checks it as
// it checks client.ts, mutants included, and runs `keyScenario` against a live keys server.
import type { components } from './api.ts';
import { type Client, createClient, expect, nextLink } from './call.ts';
import { API_VERSION } from './client.ts';

type Schemas = components['schemas'];
/** An API key as the service answers it: never its secret. */
export type ApiKey = Schemas['ApiKey'];
/** The 201 of a key create: the ApiKey and, this once, the key. */
export type CreatedApiKey = Schemas['CreatedApiKey'];
/** The body of a key create. */
export type NewApiKey = Schemas['NewApiKey'];

/** What the key scenario received. */
export interface KeyReport {
  created: CreatedApiKey;
  location: string | null;
  pages: string[][];
  read: ApiKey;
  notModified: number;
  forbidden: string;
  challenge: string | null;
  readerList: number;
  invalid: string[];
  revoked: number;
  revokedAgain: number;
  afterRevoke: ApiKey;
  unauthorized: string;
}

// Every page of the key list, `limit` at a time, by the `Link` of each.
async function listPages(admin: Client): Promise<string[][]> {
  const pages: string[][] = [];
  let page = await admin.call('get', '/api/keys', { params: { query: { limit: 1 } } });
  for (let href: string | undefined = ''; href !== undefined && pages.length < 10; href = nextLink(page.headers)) {
    if (href !== '') page = await admin.follow('/api/keys', href);
    pages.push(expect(page, 200).map((key) => key.id));
  }
  return pages;
}

/** With `adminKey`: makes a `read` key, lists, reads and revokes it; the new key meets 403 on a create, then 401 once revoked. */
export async function keyScenario(base: string, adminKey: string): Promise<KeyReport> {
  const admin = createClient(base, API_VERSION, adminKey);
  const request: NewApiKey = { name: 'nightly report', scopes: ['read'], expiresAt: '2099-01-31T12:00:00Z' };
  const made = await admin.call('post', '/api/keys', { body: request });
  const created = expect(made, 201);
  // Shown this once: a later read of the key has no `key` member.
  const secret: string = created.key;
  const pages = await listPages(admin);
  const path = { id: created.id };
  const current = await admin.call('get', '/api/keys/{id}', { params: { path } });
  const read = expect(current, 200);
  const etag = { 'If-None-Match': current.headers.get('etag') ?? '' };
  const notModified = await admin.call('get', '/api/keys/{id}', { params: { path, header: etag } });
  const reader = createClient(base, API_VERSION, secret);
  const refused = await reader.call('post', '/api/products', { body: { name: 'Desk lamp', priceInCents: 1999 } });
  const forbidden: 'forbidden' = expect(refused, 403).code;
  const readerList = await reader.call('get', '/api/products');
  expect(readerList, 200);
  const repeated = await admin.call('post', '/api/keys', { body: { name: read.name, scopes: ['read', 'read'] } });
  const invalid = (expect(repeated, 422).errors ?? []).map((error) => ('pointer' in error ? `${error.pointer} ${error.code}` : error.parameter));
  const revocation = await admin.call('delete', '/api/keys/{id}', { params: { path, header: { 'If-Match': '"1"' } } });
  expect(revocation, 204);
  const again = await admin.call('delete', '/api/keys/{id}', { params: { path } });
  const afterRevoke = expect(await admin.call('get', '/api/keys/{id}', { params: { path } }), 200);
  const unauthorized: 'unauthorized' = expect(await reader.call('get', '/api/products'), 401).code;
  return {
    created,
    location: made.headers.get('location'),
    pages,
    read,
    notModified: notModified.status,
    forbidden,
    challenge: refused.headers.get('www-authenticate'),
    readerList: readerList.status,
    invalid,
    revoked: revocation.status,
    revokedAgain: again.status,
    afterRevoke,
    unauthorized,
  };
}

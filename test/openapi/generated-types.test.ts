import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type MadeKey, makeKey } from '../support/keys.ts';
import { ALL_RESOURCES, filtersOf, representationMembers } from '../support/resources.ts';
import { resolvePointer } from '../support/schema.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type DescribedReport, describedClient } from './described-clients.ts';
import { documentOf } from './documents.ts';
import { checkTypedClient, type Mutant, type TypedClient } from './generated-types.ts';

// The document a keys server serves (SVC_AUTH=keys: every operation and the keys endpoints), turned
// into types by openapi-typescript 7.13.0 with its defaults (the most used TypeScript generator), must
// type a client that follows the contract, refuse one that does not, and agree with what the live
// server answers. The example client is typed-client/client.ts (the service's resources, products as
// its main sample), and keys-client.ts for its key calls; and for every resource the server serves
// (the throwaway one too), a program written from its description (described-clients.ts).
type Json = Record<string, unknown>;
const DESCRIBED = ALL_RESOURCES.map(describedClient);

// Each is one line of client.ts changed into a type error; tsc must report an error on that line.
const MUTANTS: Mutant[] = [
  { name: 'a price sent as a string', from: "priceInCents: 1999 }", to: "priceInCents: '12' }" },
  { name: 'an unknown member in a create', from: "{ name: 'Desk lamp', priceInCents: 1999 }", to: "{ name: 'Desk lamp', priceInCents: 1999, colour: 'red' }" },
  { name: 'a status outside ProductStatus', from: 'status: 2 }', to: 'status: 3 }' },
  { name: 'a method the path does not have', from: "api.call('get', '/api/products', { params: { query: { limit: 1 } } })", to: "api.call('put', '/api/products', { params: { query: { limit: 1 } } })" },
  { name: 'a path the document does not have', from: "'get', '/api/products/{id}', { params: { path: { id: defaulted.id", to: "'get', '/api/product/{id}', { params: { path: { id: defaulted.id" },
  { name: 'an id that is not a number', from: 'path: { id: defaulted.id }', to: 'path: { id: String(defaulted.id) }' },
  { name: 'a status the operation does not answer', from: "{ body: lamp }), 201)", to: "{ body: lamp }), 200)" },
  { name: 'a member a Product does not have', from: '= defaulted.status;', to: '= defaulted.state;' },
  { name: 'a member a Problem does not have', from: 'problem.errors ??', to: 'problem.fieldErrors ??' },
  { name: 'null in a patch: no field can be removed', from: "body: { name: 'Brass lamp' }", to: 'body: { name: null }' },
  { name: 'an unknown member in a patch', from: '{ priceInCents: 2499 }', to: "{ priceInCents: 2499, colour: 'red' }" },
  { name: 'a status filter sent as a string', from: 'status: 2, limit', to: "status: '2', limit" },
  { name: 'a header the operation does not read', from: "header: { 'If-None-Match': etag }", to: "header: { 'Idempotency-Key': etag }" },
  { name: 'a code the 409 of a product patch does not have', from: "const refused: 'product_archived'", to: "const refused: 'idempotency_key_in_use'" },
  { name: 'a body sent with a DELETE', from: "api.call('delete', '/api/products/{id}', { params:", to: "api.call('delete', '/api/products/{id}', { body: {}, params:" },
  { name: 'a body read from a 204', from: 'expect(deletion, 204);', to: 'expect(deletion, 204).id;' },
  { name: 'another API version than the document\'s', from: "API_VERSION: ApiVersion = '2026-11-21'", to: "API_VERSION: ApiVersion = '2026-12-05'" },
  ...keyMutants(),
  ...DESCRIBED.flatMap((described) => described.mutants),
];

// The same for the key calls of keys-client.ts.
function keyMutants(): Mutant[] {
  const mutants: Omit<Mutant, 'source'>[] = [
    { name: 'a scope that does not exist', from: "scopes: ['read'], expiresAt", to: "scopes: ['root'], expiresAt" },
    { name: 'a new key without its required name', from: "{ name: 'nightly report', scopes", to: '{ scopes' },
    { name: 'an expiry that is not a date-time string', from: "expiresAt: '2099-01-31T12:00:00Z'", to: 'expiresAt: 4102444800000' },
    { name: 'an Idempotency-Key on a key create', from: "'/api/keys', { body: request }", to: "'/api/keys', { params: { header: { 'Idempotency-Key': 'retry-1' } }, body: request }" },
    { name: 'the key read from a stored ApiKey', from: 'name: read.name', to: 'name: read.key' },
    { name: 'a key id that is a number', from: "current = await admin.call('get', '/api/keys/{id}', { params: { path } })", to: "current = await admin.call('get', '/api/keys/{id}', { params: { path: { id: 1 } } })" },
    { name: 'a method the keys path does not have', from: "admin.call('delete', '/api/keys/{id}', { params: { path } })", to: "admin.call('patch', '/api/keys/{id}', { params: { path } })" },
    { name: 'a status a revocation does not answer', from: 'expect(revocation, 204);', to: 'expect(revocation, 200);' },
    { name: 'a code the 403 does not have', from: "const forbidden: 'forbidden'", to: "const forbidden: 'unauthorized'" },
    { name: 'a 403 on a list any key may read', from: 'expect(readerList, 200);', to: 'expect(readerList, 403);' },
  ];
  return mutants.map((mutant) => ({ ...mutant, source: 'keys-client.ts' }));
}

interface Product {
  id: number;
  name: string;
  priceInCents: number;
  status: number;
  createdAt: string;
  updatedAt: string;
}
// What the clients' scenarios return (their own types are generated, so the suite's typecheck cannot import them).
interface Report {
  defaulted: Product;
  archived: Product;
  read: Product;
  pages: Product[][];
  problem: Json;
  invalid: string[];
  notModified: number;
  patched: Product;
  stale: string;
  refused: string;
  archivedIds: number[];
  deleted: number;
  gone: number;
  events: { id: string; type: string; createdAt: string; data: { id: number; name: string } }[];
  answeredIn: string[];
}
interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}
interface KeyReport {
  created: ApiKey & { key: string };
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

let server: TestServer;
let admin: MadeKey;
let document: Json;
let typed: TypedClient;
let live: Promise<{ report: Report; keys: KeyReport }> | undefined;

// The scenarios, run once against the live server with its admin key; each test checks a part of what they received.
function liveReport(): Promise<{ report: Report; keys: KeyReport }> {
  const load = async <M>(file: string): Promise<M> => (await import(pathToFileURL(join(typed.folder, file)).href)) as M;
  live ??= (async () => {
    const client = await load<{ scenario(base: string, credential: string): Promise<Report> }>('client.ts');
    const keys = await load<{ keyScenario(base: string, adminKey: string): Promise<KeyReport> }>('keys-client.ts');
    return { report: await client.scenario(server.url, admin.key), keys: await keys.keyScenario(server.url, admin.key) };
  })();
  return live;
}
before(async () => {
  // As startKeysServer (test/support/keys.ts) does, on a server of every resource: the first admin key made on its database.
  server = await startTestServer({ SVC_AUTH: 'keys' }, { resources: ALL_RESOURCES });
  admin = await makeKey(server.database, { name: 'first admin', scopes: ['admin'] });
  const served = await (await fetch(`${server.url}/api/openapi.json`)).text();
  document = JSON.parse(served) as Json;
  typed = checkTypedClient(served, MUTANTS, { keys: true, sources: Object.fromEntries(DESCRIBED.map((described) => [described.file, described.source])) });
});
after(async () => {
  typed.remove();
  await server.stop();
});

test('no request body schema gives a member a default (openapi-typescript would type it as required)', () => {
  const bodies = Object.values(document['paths'] as Record<string, Record<string, Json>>)
    .flatMap((item) => Object.values(item))
    .map((operation) => ((operation['requestBody'] as Json | undefined)?.['content'] as Record<string, { schema: Json }> | undefined) ?? {})
    .flatMap((content) => Object.values(content).map((media) => media.schema));
  assert.ok(bodies.length >= 2, 'the creates have request bodies');
  for (const body of bodies) {
    const schema = (typeof body['$ref'] === 'string' ? resolvePointer(document, body['$ref']) : body) as Json;
    for (const [name, member] of Object.entries((schema['properties'] as Record<string, Json> | undefined) ?? {})) {
      assert.equal('default' in member, false, `${String(body['$ref'])} ${name}`);
    }
  }
});

test('the generated types accept a client that follows the contract, status left out included, its key calls, and every resource\'s program', () => {
  const programs = new Set(['call.ts', 'client.ts', 'keys-client.ts', ...DESCRIBED.map((described) => described.file)]);
  assert.deepEqual(typed.diagnostics.filter((d) => programs.has(d.file)), []);
});

test('every deliberate type error in the client fails to compile, on its own line', () => {
  assert.equal(typed.mutants.length, MUTANTS.length);
  for (const mutant of typed.mutants) {
    const errors = typed.diagnostics.filter((d) => d.file === mutant.file);
    assert.ok(errors.some((d) => d.line === mutant.line), `${mutant.name}: expected an error on line ${mutant.line}, got ${JSON.stringify(errors)}`);
  }
});

test('the example client also type-checks against the documents of the other modes', () => {
  for (const mode of ['off', 'token', 'jwt'] as const) {
    const other = checkTypedClient(JSON.stringify(documentOf(mode)));
    try {
      assert.deepEqual(other.diagnostics, [], mode);
    } finally {
      other.remove();
    }
  }
});

test('the typed client runs against the live server, and what it receives is what the types say', async () => {
  const { report } = await liveReport();
  assert.equal(report.defaulted.status, 1, 'status left out is 1');
  assert.equal(report.archived.status, 2);
  assert.deepEqual(report.read, report.defaulted);
  assert.deepEqual(report.pages.map((page) => page.map((product) => product.id)), [[report.archived.id], [report.defaulted.id]]);
  assert.equal(report.problem['code'], 'validation_failed');
  assert.deepEqual(report.invalid, ['/name too_short', '/priceInCents too_small']);
  assert.deepEqual(report.answeredIn, ['2026-11-21'], 'every answer in the version the program is written against');
});

test('the typed client changes through the ETag, meets 412 and 409, filters by status and deletes', async () => {
  const { report } = await liveReport();
  assert.equal(report.notModified, 304);
  assert.deepEqual({ ...report.patched, updatedAt: '' }, { ...report.defaulted, priceInCents: 2499, updatedAt: '' });
  assert.equal(report.defaulted.updatedAt, report.defaulted.createdAt);
  assert.ok(report.patched.updatedAt >= report.defaulted.updatedAt);
  assert.deepEqual([report.stale, report.refused], ['precondition_failed', 'product_archived']);
  assert.deepEqual(report.archivedIds, [report.archived.id]);
  assert.deepEqual([report.deleted, report.gone], [204, 404]);
});

test('the typed client follows the event feed: every change of the scenario, oldest first', async () => {
  const { report } = await liveReport();
  const mine = report.events.filter((event) => event.data.id === report.defaulted.id && event.type.startsWith('product.'));
  assert.deepEqual(mine.map((event) => event.type), ['product.created', 'product.updated', 'product.deleted']);
});

test('the typed client manages a key: makes it (shown once), pages, reads, revokes; the key meets 403, then 401', async () => {
  const { keys } = await liveReport();
  const { key, ...apiKey } = keys.created;
  assert.match(key, /^svc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}$/);
  assert.deepEqual([apiKey.name, apiKey.scopes, apiKey.expiresAt, apiKey.revokedAt], ['nightly report', ['read'], '2099-01-31T12:00:00.000Z', null]);
  assert.equal(keys.location, `/api/keys/${apiKey.id}`);
  assert.deepEqual(keys.pages, [[apiKey.id], [admin.id]], 'newest first, a page at a time');
  assert.deepEqual(keys.read, apiKey);
  assert.equal(keys.notModified, 304);
  assert.deepEqual([keys.forbidden, keys.challenge, keys.readerList], ['forbidden', 'Bearer error="insufficient_scope", scope="write"', 200]);
  assert.deepEqual(keys.invalid, ['/scopes/1 duplicate']);
  assert.deepEqual([keys.revoked, keys.revokedAgain, keys.unauthorized], [204, 204, 'unauthorized']);
  assert.deepEqual({ ...keys.afterRevoke, revokedAt: null }, apiKey);
  assert.match(keys.afterRevoke.revokedAt ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});

test('every resource\'s program runs against the live server, and what it receives is what the types say', async () => {
  await liveReport(); // the example's scenario first: it counts the products it lists
  for (const { resource, file } of DESCRIBED) {
    const program = (await import(pathToFileURL(join(typed.folder, file)).href)) as { run(base: string, credential: string): Promise<DescribedReport> };
    const { body, made, read, patch, changed, filtered, deleted, gone } = await program.run(server.url, admin.key);
    assert.deepEqual(Object.keys(made), representationMembers(resource), resource.plural);
    assert.deepEqual({ ...made, ...body }, made, 'what was created is what was sent');
    assert.deepEqual(read, made);
    assert.deepEqual({ ...changed, ...patch }, changed, 'what was changed is what was patched');
    for (const { field, value } of filtersOf(resource)) {
      const listed = (filtered[field] ?? []).some((found) => found['id'] === made['id']);
      assert.equal(listed, changed[field] === value, `${resource.plural}: listed by ${field}=${value} as it then was`);
      assert.ok((filtered[field] ?? []).every((found) => found[field] === value), `${resource.plural}: only ${field}=${value}`);
    }
    assert.deepEqual([deleted, gone], [204, 404], resource.plural);
  }
});

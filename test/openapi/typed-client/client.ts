// A small client program of the service, written against API version 2026-11-21 and only against the
// types openapi-typescript generates from that version's document. `./api.ts` is generated next to a
// copy of this file (and of call.ts) by test/openapi/generated-types.test.ts, which type-checks it (tsc
// --strict), checks that mutants of it do not compile, and runs `scenario` against a live server
// through Node's type stripping. A new operation needs no change to `call`: add a step to `scenario`.
// keys-client.ts manages API keys with it (against the keys document, the one that has them).
import type { components } from './api.ts';
import { type ApiVersion, type Client, createClient, expect, nextLink } from './call.ts';

/** The API version this program is written against: its types allow no other. */
export const API_VERSION: ApiVersion = '2026-11-21';

type Schemas = components['schemas'];
/** A product as the service answers it. */
export type Product = Schemas['Product'];
/** A workspace as the service answers it. */
export type Workspace = Schemas['Workspace'];
/** The body of a product create. */
export type NewProduct = Schemas['NewProduct'];
/** The body of a product change (JSON Merge Patch). */
export type ProductPatch = Schemas['ProductPatch'];
/** An RFC 9457 problem document. */
export type Problem = Schemas['Problem'];
/** An event of the feed. */
export type Event = Schemas['Event'];

/** What the changes of the scenario received. */
export interface Changes {
  notModified: number;
  patched: Product;
  stale: string;
  refused: string;
  archivedIds: number[];
  renamed: Workspace;
  deleted: number;
  gone: number;
}

/** What the scenario sent and received, for the test to compare. */
export interface Report extends Changes {
  defaulted: Product;
  archived: Product;
  read: Product;
  pages: Product[][];
  workspace: Workspace;
  problem: Problem;
  invalid: string[];
  /** Every event of the feed, followed five at a time until a page comes back empty. */
  events: Event[];
  /** The Api-Version of every answer. */
  answeredIn: string[];
}

/** Creates (with and without `status`), reads and lists products, creates a workspace, meets a 422, then changes and deletes. */
export async function scenario(base: string, credential?: string): Promise<Report> {
  const api = createClient(base, API_VERSION, credential);
  // `status` left out, as the contract allows: the service fills in 1.
  const lamp: NewProduct = { name: 'Desk lamp', priceInCents: 1999 };
  const defaulted = expect(await api.call('post', '/api/products', { body: lamp }), 201);
  const archived = expect(await api.call('post', '/api/products', { body: { name: 'Chair', priceInCents: 4999, status: 2 } }), 201);
  // Compiles only while a received Product always has its `status`.
  const status: Schemas['ProductStatus'] = defaulted.status;
  const read = expect(await api.call('get', '/api/products/{id}', { params: { path: { id: defaulted.id } } }), 200);
  const pages: Product[][] = [];
  let page = await api.call('get', '/api/products', { params: { query: { limit: 1 } } });
  for (let href: string | undefined = ''; href !== undefined && pages.length < 10; href = nextLink(page.headers)) {
    if (href !== '') page = await api.follow('/api/products', href);
    pages.push(expect(page, 200));
  }
  const workspace = expect(await api.call('post', '/api/workspaces', { body: { name: 'Acme' } }), 201);
  // Well typed, yet against the contract's rules: the service answers 422 with every field error.
  const rejected = await api.call('post', '/api/products', { body: { name: '   ', priceInCents: -1, status } });
  const problem: Problem = expect(rejected, 422);
  const invalid = (problem.errors ?? []).map((error) => ('pointer' in error ? `${error.pointer} ${error.code}` : `${error.parameter} ${error.code}`));
  const changes = await changeAndDelete(api, defaulted.id, archived.id, workspace.id);
  const events = await followEvents(api);
  return { defaulted, archived, read, pages, workspace, problem, invalid, ...changes, events, answeredIn: api.answeredIn() };
}

/** Reads the event feed from its start, following `next` until a page is empty (docs/events.md). */
async function followEvents(api: Client): Promise<Event[]> {
  const events: Event[] = [];
  let answer = await api.call('get', '/api/events', { params: { query: { limit: 5 } } });
  for (let pages = 0; pages < 20; pages++) {
    // The 200 is JSON or, asked for with Accept: text/event-stream, the live stream's text: this client asks for JSON.
    const page = expect(answer, 200) as Event[];
    const href = nextLink(answer.headers);
    events.push(...page);
    if (page.length === 0 || href === undefined) break;
    answer = await api.follow('/api/events', href);
  }
  return events;
}

/** Revalidates with the ETag, changes with If-Match, meets 412 and 409, lists archived products, deletes. */
async function changeAndDelete(api: Client, id: number, archivedId: number, workspaceId: number): Promise<Changes> {
  const current = await api.call('get', '/api/products/{id}', { params: { path: { id } } });
  const etag = current.headers.get('etag') ?? '';
  const notModified = await api.call('get', '/api/products/{id}', { params: { path: { id }, header: { 'If-None-Match': etag } } });
  expect(notModified, 304);
  const repricing: ProductPatch = { priceInCents: 2499 };
  const header = { 'If-Match': etag };
  const changed = await api.call('patch', '/api/products/{id}', { params: { path: { id }, header }, body: repricing, contentType: 'application/merge-patch+json' });
  const patched = expect(changed, 200);
  // The same If-Match again: the change moved the ETag, so this lost update is refused.
  const lost = await api.call('patch', '/api/products/{id}', { params: { path: { id }, header }, body: { name: 'Brass lamp' } });
  // The generated types narrow each status to the codes the operation documents for it.
  const stale: 'precondition_failed' = expect(lost, 412).code;
  const edit = await api.call('patch', '/api/products/{id}', { params: { path: { id: archivedId } }, body: { name: 'Stool' } });
  const refused: 'product_archived' = expect(edit, 409).code;
  const archivedOnly = expect(await api.call('get', '/api/products', { params: { query: { status: 2, limit: 10 } } }), 200);
  const renamed = expect(await api.call('patch', '/api/workspaces/{id}', { params: { path: { id: workspaceId } }, body: { name: 'Acme Europe' } }), 200);
  const tag = { 'If-Match': changed.headers.get('etag') ?? '' };
  const deletion = await api.call('delete', '/api/products/{id}', { params: { path: { id }, header: tag } });
  expect(deletion, 204);
  const gone = await api.call('get', '/api/products/{id}', { params: { path: { id } } });
  return { notModified: notModified.status, patched, stale, refused, archivedIds: archivedOnly.map((p) => p.id), renamed, deleted: deletion.status, gone: gone.status };
}

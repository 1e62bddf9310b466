// A small client of the service, written only against the types openapi-typescript generates from
// the served document. `./api.ts` is generated next to a copy of this file by
// test/openapi/generated-types.test.ts, which type-checks it (tsc --strict), checks that mutants of
// it do not compile, and runs `scenario` against a live server through Node's type stripping.
// A new operation needs no change to `call`, which is typed from `paths`: add a step to `scenario`.
// keys-client.ts manages API keys with it (against the keys document, the one that has them).
import type { components, paths } from './api.ts';

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

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The methods the document lists for path `P`. */
type MethodOf<P extends keyof paths> = { [M in Method]: paths[P][M] extends undefined ? never : M }[Method];
type Operation<P extends keyof paths, M extends Method> = Exclude<paths[P][M], undefined>;

type ParamsOf<O> = O extends { parameters: infer Params } ? Params : never;
// `params` may be left out when every parameter is optional; a request body, when there is none.
type ParamsInit<O> = object extends ParamsOf<O> ? { params?: ParamsOf<O> } : { params: ParamsOf<O> };
type BodyInit<O> = O extends { requestBody: { content: infer C } }
  ? { body: C[keyof C]; contentType?: keyof C & string }
  : { body?: never; contentType?: never };
/** What a request of operation `O` takes. */
export type Init<O> = ParamsInit<O> & BodyInit<O>;
type InitArgs<O> = object extends Init<O> ? [init?: Init<O>] : [init: Init<O>];

type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;
/** Every answer operation `O` documents, told apart by `status`. */
export type Answer<O> = { [S in keyof ResponsesOf<O>]: { status: S; headers: Headers; body: ContentOf<ResponsesOf<O>[S]> } }[keyof ResponsesOf<O>];

interface RuntimeInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  contentType?: string;
}

function urlOf(base: string, path: string, init: RuntimeInit): URL {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(init.params?.path?.[name])));
  const url = new URL(filled, base);
  for (const [name, value] of Object.entries(init.params?.query ?? {})) url.searchParams.set(name, String(value));
  return url;
}

// The one place where the wire meets the types: the test's live run is what shows they agree.
// The credential is no parameter of any operation: the document names it in `security`.
async function send<A>(method: string, url: URL, init: RuntimeInit, credential: string | undefined): Promise<A> {
  const headers = new Headers();
  if (credential !== undefined) headers.set('authorization', `Bearer ${credential}`);
  for (const [name, value] of Object.entries(init.params?.header ?? {})) headers.set(name, String(value));
  if (init.body !== undefined) headers.set('content-type', init.contentType ?? 'application/json');
  const body = init.body === undefined ? null : JSON.stringify(init.body);
  const res = await fetch(url, { method: method.toUpperCase(), headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) } as A;
}

/** A client of the service at `base`, typed by the generated `paths`, sending `credential` (an API key) when given. */
export function createClient(base: string, credential?: string) {
  return {
    /** Sends one documented operation. */
    call<P extends keyof paths, M extends MethodOf<P>>(method: M, path: P, ...[init]: InitArgs<Operation<P, M>>) {
      const given = (init ?? {}) as RuntimeInit;
      return send<Answer<Operation<P, M>>>(method, urlOf(base, path, given), given, credential);
    },
    /** Follows a `Link` of a list of `path`: the next page of the same operation. */
    follow<P extends keyof paths>(path: P, href: string) {
      return send<Answer<Operation<P, 'get'>>>('get', new URL(href, base), {}, credential);
    },
  };
}

/** The body of `answer` when it has `status`; any other answer is thrown. */
export function expect<A extends { status: unknown; body: unknown }, const S extends A['status']>(answer: A, status: S): Extract<A, { status: S }>['body'] {
  if (answer.status !== status) throw new Error(`expected ${String(status)}, got ${String(answer.status)}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The target of `Link: <…>; rel="next"`, or undefined on the last page. */
export function nextLink(headers: Headers): string | undefined {
  return /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];
}

/** A client made by createClient. */
export type Client = ReturnType<typeof createClient>;

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
}

/** Creates (with and without `status`), reads and lists products, creates a workspace, meets a 422, then changes and deletes. */
export async function scenario(base: string, credential?: string): Promise<Report> {
  const api = createClient(base, credential);
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
  return { defaulted, archived, read, pages, workspace, problem, invalid, ...changes, events: await followEvents(api) };
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

// The typed calls of the client programs, written only against the types openapi-typescript
// generates from a served document: `./api.ts` is generated next to a copy of this file by
// test/openapi/generated-types.ts. A new operation needs no change here: `call` is typed from `paths`.
// Each program (client.ts, keys-client.ts against 2026-11-21; client-2026-12-05.ts) says the API
// version it is written against, and every request sends it.
import type { components, paths } from './api.ts';

/** The API version of the document the types were generated from: the one value its `Api-Version` takes. */
export type ApiVersion = components['parameters']['ApiVersion'];

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

// What every request of a client carries: its API version, and its credential when it has one.
interface Sent {
  readonly version: ApiVersion;
  readonly credential: string | undefined;
  /** The Api-Version of every answer, as received. */
  readonly answeredIn: Set<string>;
}

// The one place where the wire meets the types: the test's live run is what shows they agree.
// The credential is no parameter of any operation: the document names it in `security`.
async function send<A>(method: string, url: URL, init: RuntimeInit, sent: Sent): Promise<A> {
  const headers = new Headers({ 'api-version': sent.version });
  if (sent.credential !== undefined) headers.set('authorization', `Bearer ${sent.credential}`);
  for (const [name, value] of Object.entries(init.params?.header ?? {})) headers.set(name, String(value));
  if (init.body !== undefined) headers.set('content-type', init.contentType ?? 'application/json');
  const body = init.body === undefined ? null : JSON.stringify(init.body);
  const res = await fetch(url, { method: method.toUpperCase(), headers, body });
  sent.answeredIn.add(res.headers.get('api-version') ?? '(none)');
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) } as A;
}

/**
 * A client of the service at `base`, typed by the generated `paths`, sending `version` (the document's,
 * the only one its types allow) with every request, and `credential` (an API key) when given.
 */
export function createClient(base: string, version: ApiVersion, credential?: string) {
  const sent: Sent = { version, credential, answeredIn: new Set() };
  return {
    /** Sends one documented operation. */
    call<P extends keyof paths, M extends MethodOf<P>>(method: M, path: P, ...[init]: InitArgs<Operation<P, M>>) {
      const given = (init ?? {}) as RuntimeInit;
      return send<Answer<Operation<P, M>>>(method, urlOf(base, path, given), given, sent);
    },
    /** Follows a `Link` of a list of `path`: the next page of the same operation. */
    follow<P extends keyof paths>(path: P, href: string) {
      return send<Answer<Operation<P, 'get'>>>('get', new URL(href, base), {}, sent);
    },
    /** The API version of every answer so far. */
    answeredIn: (): string[] => [...sent.answeredIn],
  };
}

/** The body of `answer` when it has `status`; any other answer is thrown. */
export function expect<A extends { status: unknown; body: unknown }, const S extends A['status']>(answer: A, status: S): Extract<A, { status: S }>['body'] {
  if (answer.status !== status) throw new Error(`expected ${String(status)}, got ${String(answer.status)}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The target of `Link: <…>; rel="next"`, or undefined on the last page (another link may come before it, in the same field). */
export function nextLink(headers: Headers): string | undefined {
  return /(?:^|, )<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1];
}

/** A client made by createClient. */
export type Client = ReturnType<typeof createClient>;

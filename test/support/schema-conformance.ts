import assert from 'node:assert/strict';
import { resolvePointer, type Schema, validate } from './schema.ts';

type Json = Readonly<Record<string, unknown>>;

/** A response read and checked against the document. */
export interface CheckedResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

function deref(root: Json, node: unknown): Json {
  const object = node as Json;
  return typeof object['$ref'] === 'string' ? (resolvePointer(root, object['$ref']) as Json) : object;
}

// Header values are text; a header documented as an integer must be one written in digits.
function headerValue(text: string, schema: Schema): unknown {
  return schema['type'] === 'integer' && /^\d+$/.test(text) ? Number(text) : text;
}

// Headers a client of the contract reads: one sent where the document does not list it is an error,
// as a documented one that is absent (when required) or malformed is.
const CONTRACT_HEADERS = [
  'etag', 'location', 'link', 'www-authenticate', 'retry-after', 'idempotent-replayed', 'ratelimit', 'ratelimit-policy', 'accept-encoding',
  'api-version', 'deprecation', 'sunset',
];

// `undocumented`: whether a contract header sent but not listed is an error (on an operation's answers);
// `mayLack`: documented headers this answer may lack although they are required on the others.
function headerErrors(root: Json, documented: Json, headers: Headers, undocumented = true, mayLack: readonly string[] = []): string[] {
  const errors: string[] = [];
  const listed = new Set(Object.keys(documented).map((name) => name.toLowerCase()));
  for (const name of undocumented ? CONTRACT_HEADERS : []) if (headers.has(name) && !listed.has(name)) errors.push(`header ${name}: sent but not documented`);
  for (const [name, node] of Object.entries(documented)) {
    const header = deref(root, node);
    const text = headers.get(name);
    if (text === null) {
      if (header['required'] === true && !mayLack.includes(name)) errors.push(`header ${name}: required but absent`);
      continue;
    }
    const schema = header['schema'] as Schema;
    errors.push(...validate(headerValue(text, schema), schema, root, `header ${name}`));
  }
  return errors;
}

// A response documented without content (204, 304) has no body, so no media type either;
// a 204 has no Content-Length (RFC 9110 §8.6).
function assertNoContent(res: Response, text: string, at: string): void {
  assert.equal(text, '', `${at} has no body`);
  assert.equal(res.headers.get('content-type'), null, `${at} has no Content-Type`);
  if (res.status === 204) assert.equal(res.headers.get('content-length'), null, `${at} has no Content-Length`);
}

/**
 * Checks live responses against an OpenAPI document and remembers what it saw, so a test can
 * assert that every documented operation and error code was met at least once.
 */
export class ConformanceChecker {
  readonly #root: Json;
  readonly #version: string | undefined;
  /** `METHOD pattern status` of every response checked. */
  readonly seen = new Set<string>();
  /** Every problem `code` seen in a checked response. */
  readonly seenCodes = new Set<string>();
  /** `METHOD pattern code` of every problem checked against an operation. */
  readonly seenOperationCodes = new Set<string>();

  /** `version`: the API version every answer checked must say it was made in (but a refused version's 400), when given. */
  constructor(document: unknown, version?: string) {
    this.#root = document as Json;
    this.#version = version;
  }

  /** The document responses are checked against. */
  get document(): unknown {
    return this.#root;
  }

  /** The operation object for `method` on `pattern`, e.g. ('GET', '/api/products/{id}'). */
  operation(method: string, pattern: string): Json {
    const item = (this.#root['paths'] as Record<string, Json>)[pattern];
    const operation = item?.[method.toLowerCase()];
    assert.ok(operation !== undefined, `${method} ${pattern} is not in the document`);
    return operation as Json;
  }

  /** Reads `res` and asserts its status, media type, body and headers are as documented. */
  async check(method: string, pattern: string, res: Response): Promise<CheckedResponse> {
    const responses = this.operation(method === 'HEAD' ? 'GET' : method, pattern)['responses'] as Json;
    const documented = responses[String(res.status)];
    const at = `${method} ${pattern} ${res.status}`;
    assert.ok(documented !== undefined, `${method} ${pattern}: status ${res.status} is not documented (${Object.keys(responses).join(', ')})`);
    const response = deref(this.#root, documented);
    const errors = headerErrors(this.#root, (response['headers'] as Json | undefined) ?? {}, res.headers);
    const text = await res.text();
    const content = response['content'] as Record<string, Json> | undefined;
    const type = res.headers.get('content-type')?.split(';')[0]?.trim();
    let body: unknown;
    if (content === undefined) {
      assertNoContent(res, text, at);
    } else {
      const media = content[type ?? ''];
      assert.ok(media !== undefined, `${at}: media type ${String(type)} is not documented`);
      if (method === 'HEAD') {
        assert.equal(text, '', 'HEAD has no body');
      } else if (type === 'text/html') {
        // The API's own page: a string, checked by the browser tests.
        body = text;
        errors.push(...validate(body, media['schema'] as Schema, this.#root, 'body'));
      } else {
        body = JSON.parse(text);
        errors.push(...validate(body, media['schema'] as Schema, this.#root, 'body'));
      }
    }
    assert.deepEqual(errors, [], `${at} does not conform: ${text.slice(0, 500)}`);
    this.seen.add(`${method} ${pattern} ${res.status}`);
    const code = (body as Json | undefined)?.['code'];
    if (this.#version !== undefined && code !== 'unsupported_api_version') assert.equal(res.headers.get('api-version'), this.#version, `${at}: made in the version of the run`);
    if (type === 'application/problem+json' && typeof code === 'string') {
      this.seenCodes.add(code);
      this.seenOperationCodes.add(`${method} ${pattern} ${code}`);
    }
    return { status: res.status, headers: res.headers, body };
  }

  /**
   * Checks a problem answered outside any operation (unknown path, 405, unparseable request):
   * its body against `schema` and its headers against those every response carries, which are
   * the headers documented on readiness (the one operation with no others); `mayLack`: those of
   * them only an answer under /api carries (the API version's), for a request with no path.
   */
  async checkOutsideOperations(res: Response, schema: Schema, mayLack: readonly string[] = []): Promise<unknown> {
    const ready = deref(this.#root, (this.operation('GET', '/api/ping')['responses'] as Json)['200']);
    // These answers are described in words (info.description), their own headers (Allow, WWW-Authenticate) with them.
    const errors = headerErrors(this.#root, ready['headers'] as Json, res.headers, false, mayLack);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const body: unknown = await res.json();
    errors.push(...validate(body, schema, this.#root, 'body'));
    assert.deepEqual(errors, [], `${res.status} does not conform: ${JSON.stringify(body)}`);
    this.seenCodes.add(String((body as Json)['code']));
    return body;
  }
}

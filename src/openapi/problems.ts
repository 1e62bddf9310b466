import { type ErrorCode, ERRORS, HttpError, type HttpErrorOptions, reasonPhrase } from '../http/errors.ts';
import { problemFor } from '../http/problem.ts';
import { everyResponseHeaders } from './headers.ts';
import { type JsonObject, ref } from './schemas.ts';

/** The kinds of operation of the document; an error is placed on some of them. */
export type OperationKind = 'readiness' | 'document' | 'list' | 'read' | 'create' | 'change' | 'remove';

/** The resources, by their path segment; a use-case rule of one is placed on it alone. */
export type ResourceName = 'products' | 'workspaces';

/** Where one error code can happen. */
export interface ErrorScope {
  /** The kinds of operation that can answer it; `any_request`: before routing, on no operation. */
  on: readonly OperationKind[] | 'any_request';
  /** Only when the service is configured so: a token set (SVC_API_TOKEN), rate limiting on, callers known (SVC_AUTH). */
  when?: 'token' | 'rate_limit' | 'callers';
  /** Only on this resource's operations: the code comes from a rule of its use case. */
  resource?: ResourceName;
}

const EVERY_OPERATION: readonly OperationKind[] = ['readiness', 'document', 'list', 'read', 'create', 'change', 'remove'];
// Everything that reads a request body: creates (POST) and changes (PATCH).
const WITH_BODY: readonly OperationKind[] = ['create', 'change'];
const WRITES: readonly OperationKind[] = ['create', 'change', 'remove'];

/**
 * Where each error of the catalogue can happen. Typed by ErrorCode, so a code added to ERRORS
 * does not compile until it is placed here, and so reaches the document.
 */
export const ERROR_SCOPES: Readonly<Record<ErrorCode, ErrorScope>> = {
  invalid_json: { on: WITH_BODY },
  invalid_query: { on: ['list'] },
  // Idempotency-Key on a create; If-Match or If-None-Match on a read, a change or a delete.
  invalid_header: { on: ['read', ...WRITES] },
  bad_request: { on: 'any_request' },
  request_timeout: { on: 'any_request' },
  headers_too_large: { on: 'any_request' },
  uri_too_long: { on: 'any_request' },
  unauthorized: { on: WRITES, when: 'token' },
  forbidden: { on: ['list', 'read', ...WRITES], when: 'callers' },
  not_found: { on: ['read', 'change', 'remove'] },
  method_not_allowed: { on: 'any_request' },
  idempotency_key_in_use: { on: ['create'] },
  product_archived: { on: ['change'], resource: 'products' },
  // Every method of one resource evaluates If-Match and If-None-Match (docs/api.md, ETags).
  precondition_failed: { on: ['read', 'change', 'remove'] },
  payload_too_large: { on: WITH_BODY },
  unsupported_media_type: { on: WITH_BODY },
  validation_failed: { on: WITH_BODY },
  idempotency_key_reused: { on: ['create'] },
  // Readiness is exempt from rate limiting, so a balancer's probe is never refused.
  rate_limited: { on: EVERY_OPERATION.filter((kind) => kind !== 'readiness'), when: 'rate_limit' },
  internal_error: { on: EVERY_OPERATION },
  unavailable: { on: EVERY_OPERATION },
};

/** The settings that add error responses: a token, rate limiting. */
export interface ErrorSettings {
  bearerAuth: boolean;
  rateLimited: boolean;
  /** SVC_AUTH is keys or jwt: every operation but the open ones needs a credential with a scope. */
  callers?: boolean;
}

/** Whether `code` can answer an operation of `kind` on `resource` (undefined: no resource) with `settings`. */
export function canHappen(code: ErrorCode, kind: OperationKind, resource: ResourceName | undefined, settings: ErrorSettings): boolean {
  const scope = ERROR_SCOPES[code];
  if (scope.on === 'any_request' || !scope.on.includes(kind)) return false;
  if (scope.resource !== undefined && scope.resource !== resource) return false;
  if (scope.when === 'token') return settings.bearerAuth;
  if (scope.when === 'rate_limit') return settings.rateLimited;
  if (scope.when === 'callers') return settings.callers === true;
  return true;
}

// Field errors shown in the examples of the codes that carry them.
const EXAMPLE_OPTIONS: Partial<Record<ErrorCode, HttpErrorOptions>> = {
  validation_failed: {
    detail: 'The request body has 2 invalid fields.',
    errors: [
      { pointer: '/name', code: 'required', detail: 'name is required' },
      { pointer: '/priceInCents', code: 'too_small', detail: 'priceInCents must be at least 0' },
    ],
  },
  invalid_query: {
    detail: 'limit must be an integer from 1 to 200',
    errors: [{ parameter: 'limit', code: 'too_large', detail: 'limit must be an integer from 1 to 200' }],
  },
};

// The request header each kind of operation checks, named in its invalid_header example.
const HEADER_OF_KIND: Partial<Record<OperationKind, { name: string; detail: string }>> = {
  create: { name: 'Idempotency-Key', detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' },
  read: { name: 'If-None-Match', detail: 'If-None-Match must be * or a list of entity tags such as "3" (quotes included).' },
  change: { name: 'If-Match', detail: 'If-Match must be * or a list of entity tags such as "3" (quotes included).' },
  remove: { name: 'If-Match', detail: 'If-Match must be * or a list of entity tags such as "3" (quotes included).' },
};

function exampleOptions(code: ErrorCode, kind: OperationKind | undefined): HttpErrorOptions | undefined {
  const header = kind === undefined ? undefined : HEADER_OF_KIND[kind];
  if (code !== 'invalid_header' || header === undefined) return EXAMPLE_OPTIONS[code];
  return { detail: header.detail, errors: [{ parameter: header.name, code: 'invalid', detail: header.detail }] };
}

/** A problem document for `code` as the service would send it at `instance`, on an operation of `kind`. */
export function exampleProblem(code: ErrorCode, instance: string, kind?: OperationKind): JsonObject {
  const problem = problemFor(new HttpError(code, exampleOptions(code, kind)), instance, '5b0c7e0e-3f1a-4c57-9d39-1f7d6c0b7a11');
  return { ...problem };
}

/** Extra response headers an error status carries. */
const HEADERS_BY_STATUS: Readonly<Record<number, JsonObject>> = {
  401: { 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') },
  415: { 'Accept-Encoding': ref('headers', 'AcceptEncoding') },
  429: { 'Retry-After': ref('headers', 'RetryAfter') },
  503: { 'Retry-After': ref('headers', 'RetryAfter') },
};

/** The problem schema narrowed to one status and the codes an operation can meet with it. */
function problemSchemaFor(status: number, codes: readonly ErrorCode[]): JsonObject {
  return {
    allOf: [
      ref('schemas', 'Problem'),
      { properties: { status: { const: status }, title: { const: reasonPhrase(status) }, code: { enum: codes } } },
    ],
  };
}

/** The response object of one error status for an operation of `kind`; `instance` is used in the examples. */
export function problemResponse(status: number, codes: readonly ErrorCode[], instance: string, kind: OperationKind): JsonObject {
  const examples: JsonObject = {};
  for (const code of codes) examples[code] = { summary: ERRORS[code].detail, value: exampleProblem(code, instance, kind) };
  const list = codes.map((code) => `\`${code}\``).join(', ');
  return {
    description: `${reasonPhrase(status)}: ${list}.`,
    headers: { ...everyResponseHeaders(), ...HEADERS_BY_STATUS[status] },
    content: { 'application/problem+json': { schema: problemSchemaFor(status, codes), examples } },
  };
}

/** The error codes an operation of `kind` on `resource` can meet with `settings`, grouped by status (ascending). */
export function codesByStatus(kind: OperationKind, resource: ResourceName | undefined, settings: ErrorSettings): Map<number, ErrorCode[]> {
  const grouped = new Map<number, ErrorCode[]>();
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => canHappen(code, kind, resource, settings));
  for (const code of codes.sort((a, b) => ERRORS[a].status - ERRORS[b].status)) {
    const status = ERRORS[code].status;
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return grouped;
}

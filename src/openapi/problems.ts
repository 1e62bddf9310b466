import { type ErrorCode, ERRORS, HttpError, type HttpErrorOptions, reasonPhrase } from '../http/errors.ts';
import { problemFor } from '../http/problem.ts';
import { everyResponseHeaders } from './headers.ts';
import { type JsonObject, ref } from './schemas.ts';

/**
 * Where each error of the catalogue can happen. Typed by ErrorCode, so a code added to ERRORS
 * does not compile until it is placed here, and so reaches the document.
 */
export type ErrorScope =
  | 'list' // GET of a collection
  | 'read' // GET of one resource by id
  | 'create' // every POST
  | 'change' // every PATCH and DELETE (placeholder until the document lists them)
  | 'authenticated' // every POST, when an API token is configured
  | 'limited' // every operation but readiness, when rate limiting is on
  | 'any_operation' // every operation
  | 'any_request'; // answered before routing (unknown path, other method, unparseable HTTP)

export const ERROR_SCOPES: Readonly<Record<ErrorCode, ErrorScope>> = {
  invalid_json: 'create',
  invalid_query: 'list',
  invalid_header: 'create',
  bad_request: 'any_request',
  request_timeout: 'any_request',
  headers_too_large: 'any_request',
  uri_too_long: 'any_request',
  unauthorized: 'authenticated',
  not_found: 'read',
  method_not_allowed: 'any_request',
  idempotency_key_in_use: 'create',
  product_archived: 'change',
  precondition_failed: 'change',
  payload_too_large: 'create',
  unsupported_media_type: 'create',
  validation_failed: 'create',
  idempotency_key_reused: 'create',
  rate_limited: 'limited',
  internal_error: 'any_operation',
  unavailable: 'any_operation',
};

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

/** A problem document for `code` as the service would send it at `instance`. */
export function exampleProblem(code: ErrorCode, instance: string): JsonObject {
  const problem = problemFor(new HttpError(code, EXAMPLE_OPTIONS[code]), instance, '5b0c7e0e-3f1a-4c57-9d39-1f7d6c0b7a11');
  return { ...problem };
}

/** Extra response headers an error status carries. */
const HEADERS_BY_STATUS: Readonly<Record<number, JsonObject>> = {
  401: { 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') },
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

/** The response object of one error status for an operation; `instance` is used in the examples. */
export function problemResponse(status: number, codes: readonly ErrorCode[], instance: string): JsonObject {
  const examples: JsonObject = {};
  for (const code of codes) examples[code] = { summary: ERRORS[code].detail, value: exampleProblem(code, instance) };
  const list = codes.map((code) => `\`${code}\``).join(', ');
  return {
    description: `${reasonPhrase(status)}: ${list}.`,
    headers: { ...everyResponseHeaders(), ...HEADERS_BY_STATUS[status] },
    content: { 'application/problem+json': { schema: problemSchemaFor(status, codes), examples } },
  };
}

/** The error codes of the catalogue in `scopes`, grouped by status (ascending). */
export function codesByStatus(scopes: ReadonlySet<ErrorScope>): Map<number, ErrorCode[]> {
  const grouped = new Map<number, ErrorCode[]>();
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => scopes.has(ERROR_SCOPES[code]));
  for (const code of codes.sort((a, b) => ERRORS[a].status - ERRORS[b].status)) {
    const status = ERRORS[code].status;
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return grouped;
}

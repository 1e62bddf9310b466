import { STATUS_CODES } from 'node:http';
import type { FieldError } from '../shared/validation.ts';

export type { FieldError } from '../shared/validation.ts';

/** The stable error codes of docs/api.md, Errors with their statuses and default details. */
export const ERRORS = {
  invalid_json: { status: 400, detail: 'The request body is not valid JSON.' },
  invalid_query: { status: 400, detail: 'A query parameter is invalid.' },
  unsupported_api_version: { status: 400, detail: 'This API version is not served: send one of supportedVersions in Api-Version.' },
  invalid_header: { status: 400, detail: 'A request header is invalid.' },
  // Beyond the usual catalogue: answered for requests node:http itself cannot parse or that time out.
  bad_request: { status: 400, detail: 'The request could not be parsed as HTTP/1.1.' },
  request_timeout: { status: 408, detail: 'The request was not received in time.' },
  headers_too_large: { status: 431, detail: 'The request headers are too large.' },
  uri_too_long: { status: 414, detail: 'The request target is too long.' },
  unauthorized: { status: 401, detail: 'This request needs a valid bearer token.' },
  forbidden: { status: 403, detail: 'The credential is valid but lacks the scope this operation needs.' },
  not_found: { status: 404, detail: 'No resource exists at this path.' },
  method_not_allowed: { status: 405, detail: 'This method is not allowed on this path.' },
  idempotency_key_in_use: { status: 409, detail: 'A request with this Idempotency-Key is still being processed.' },
  webhook_disabled: { status: 409, detail: 'The webhook is disabled; enable it (status 1) to retry its deliveries.' },
  precondition_failed: { status: 412, detail: 'A precondition failed: If-Match matches no current entity tag of this resource, or If-None-Match matches the current one (or is *); nothing was changed.' },
  events_expired: { status: 410, detail: 'The events after the given one are no longer kept; start again without after (or Last-Event-ID).' },
  payload_too_large: { status: 413, detail: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, detail: 'The request body must be sent as application/json (PATCH: or application/merge-patch+json), with no content coding.' },
  validation_failed: { status: 422, detail: 'The request body has invalid fields.' },
  idempotency_key_reused: { status: 422, detail: 'This Idempotency-Key was used with a different request body.' },
  rate_limited: { status: 429, detail: 'Too many requests; retry later.' },
  internal_error: { status: 500, detail: 'An unexpected error occurred.' },
  unavailable: { status: 503, detail: 'The service is unavailable; retry later.' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error of a resource's own (a rule of its use cases, docs/extending.md): its code, status and detail. */
export interface OwnError {
  readonly code: string;
  readonly status: number;
  readonly detail: string;
}

export interface HttpErrorOptions {
  detail?: string;
  errors?: readonly FieldError[];
  headers?: Readonly<Record<string, string>>;
  /** Members of its problem document besides the standard ones (`supportedVersions`). */
  members?: Readonly<Record<string, unknown>>;
}

/** An error meant for the client: its code, detail and field errors are safe to show. */
export class HttpError extends Error {
  override name = 'HttpError';
  /** A code of ERRORS, or of a resource's own error. */
  readonly code: string;
  readonly status: number;
  readonly detail: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly members: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode | OwnError, options: HttpErrorOptions = {}) {
    const known = typeof code === 'string' ? { code, ...ERRORS[code] } : code;
    const detail = options.detail ?? known.detail;
    super(detail);
    this.code = known.code;
    this.status = known.status;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.members = options.members ?? {};
  }
}

// RFC 9110 renamed these; node:http still carries the older phrases.
const RFC_9110_PHRASES: Readonly<Record<number, string>> = {
  413: 'Content Too Large',
  422: 'Unprocessable Content',
};

/** The RFC 9110 reason phrase of a status code. */
export function reasonPhrase(status: number): string {
  return RFC_9110_PHRASES[status] ?? STATUS_CODES[status] ?? 'Unknown';
}

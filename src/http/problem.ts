import { StorageBusyError, StorageUnavailableError } from '../db/errors.ts';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../idempotency/idempotent-write.ts';
import { CheckRefused } from '../resources/refused.ts';
import { ERRORS, type FieldError, HttpError, reasonPhrase } from './errors.ts';

/** An RFC 9457 problem document as this service sends it (docs/api.md, Errors). */
export interface ProblemDocument {
  type: 'about:blank';
  title: string;
  status: number;
  code: string;
  detail: string;
  instance: string;
  requestId: string;
  errors?: readonly FieldError[];
  /** `supportedVersions`, on a 400 unsupported_api_version. */
  [member: string]: unknown;
}

// The errors storage and the use cases raise, and the client error each one means: the one
// place where they meet HTTP. Their own messages are internal and never reach the client.
const CLIENT_ERRORS: readonly [new (...args: never[]) => Error, () => HttpError][] = [
  [StorageBusyError, () => unavailable('The database is busy; nothing was written. Retry shortly.', 1)],
  [StorageUnavailableError, () => unavailable('The database cannot be reached; retry shortly.', 2)],
  [IdempotencyKeyInUseError, () => new HttpError('idempotency_key_in_use')],
  [IdempotencyKeyReusedError, () => new HttpError('idempotency_key_reused')],
];

function unavailable(detail: string, retryAfterS: number): HttpError {
  return new HttpError('unavailable', { detail, headers: { 'retry-after': String(retryAfterS) } });
}

/** The HttpError an error of storage or of a use case stands for; any other error is returned as it is. */
export function asClientError(error: unknown): unknown {
  if (error instanceof HttpError || !(error instanceof Error)) return error;
  if (error instanceof CheckRefused) return new HttpError(error.refusal);
  for (const [type, toHttp] of CLIENT_ERRORS) if (error instanceof type) return toHttp();
  return error;
}

/** Builds the problem document for a client error; anything else becomes a bare 500. */
export function problemFor(error: unknown, instance: string, requestId: string): ProblemDocument {
  const known = error instanceof HttpError ? error : null;
  const status = known?.status ?? ERRORS.internal_error.status;
  const problem: ProblemDocument = {
    type: 'about:blank',
    title: reasonPhrase(status),
    status,
    code: known?.code ?? 'internal_error',
    // A 5xx that was not raised on purpose says nothing about its cause (Koa's `expose`).
    detail: known?.detail ?? ERRORS.internal_error.detail,
    instance,
    requestId,
  };
  if (known?.errors !== undefined) problem.errors = known.errors;
  return known === null ? problem : { ...problem, ...known.members };
}

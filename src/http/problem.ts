import { ERRORS, type FieldError, HttpError, reasonPhrase } from './errors.ts';

/** An RFC 9457 problem document as this service sends it (API.md §4). */
export interface ProblemDocument {
  type: 'about:blank';
  title: string;
  status: number;
  code: string;
  detail: string;
  instance: string;
  requestId: string;
  errors?: readonly FieldError[];
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
  return problem;
}

import type { IncomingMessage } from 'node:http';
import type { Storage } from '../db/storage.ts';
import type { IdempotentWrites } from '../idempotency/idempotent-write.ts';
import type { Validated } from '../shared/validation.ts';
import { isIdentityCoding, isJsonContentType, parseJson, readBody } from './body.ts';
import { HttpError } from './errors.ts';

/** What every write shares: the storage it runs in, idempotency keys, and how large a body may be. */
export interface WriteDeps {
  storage: Storage;
  idempotency: IdempotentWrites;
  bodyLimitBytes: number;
}

/** 422 validation_failed with every field error of a failed validation. */
export function validationFailed(errors: Validated<never> & { ok: false }): HttpError {
  const count = errors.errors.length;
  const detail = count === 1 ? 'The request body has 1 invalid field.' : `The request body has ${count} invalid fields.`;
  return new HttpError('validation_failed', { detail, errors: errors.errors });
}

// RFC 9110 §15.5.16 and §12.5.3: a 415 says which content codings a request may use, and that is
// only identity, whichever of the two checks below refused the body.
const ACCEPT_IDENTITY = { 'accept-encoding': 'identity' };

/**
 * Refuses, from its headers alone and before it is read, a body the service cannot read: 415 for a
 * content coding other than identity, then 415 for a media type not among `types` (with at most
 * `charset=utf-8`). The coding is judged first: the media type is that of the body once decoded.
 */
export function checkBodyHeaders(req: IncomingMessage, types: readonly string[]): void {
  if (!isIdentityCoding(req.headers['content-encoding'])) {
    const detail = 'The request body has a Content-Encoding other than identity; send it uncompressed, with no Content-Encoding.';
    throw new HttpError('unsupported_media_type', { detail, headers: ACCEPT_IDENTITY });
  }
  if (!isJsonContentType(req.headers['content-type'], types)) {
    const detail = `The request body must be sent as ${types.join(' or ')} (a charset parameter may only be utf-8).`;
    throw new HttpError('unsupported_media_type', { detail, headers: ACCEPT_IDENTITY });
  }
}

/** Reads the body within `limit` bytes, parses it as JSON and validates it: 413, 400 invalid_json or 422. */
export async function readValidated<I>(req: IncomingMessage, limit: number, validate: (body: unknown) => Validated<I>): Promise<{ body: unknown; input: I }> {
  const body = parseJson(await readBody(req, limit));
  const result = validate(body);
  if (!result.ok) throw validationFailed(result);
  return { body, input: result.value };
}

import { HttpError } from './errors.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header as given, null when absent; a malformed one is 400 invalid_header. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header === 'string' && KEY.test(header)) return header;
  throw new HttpError('invalid_header', {
    detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
    errors: [{ parameter: 'Idempotency-Key', code: 'invalid', detail: 'must be 1 to 255 characters from U+0021 to U+007E' }],
  });
}

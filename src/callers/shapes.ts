/**
 * What a bearer credential of this service looks like, in any text: an API key (`svc_`, 12 base62, `_`,
 * 49 base62: the scanner pattern of docs/security.md) or a JWT (three base64url parts, the first two
 * JSON objects, so starting `eyJ`). Whatever a client puts where it does not belong (a query string)
 * is found by these and kept out of the logs.
 */
export const KEY_IN_TEXT = /\bsvc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}\b/;
const JWT_IN_TEXT = /\beyJ[\w-]*\.eyJ[\w-]*\.[\w-]*/;
const CREDENTIALS_IN_TEXT = new RegExp(`${KEY_IN_TEXT.source}|${JWT_IN_TEXT.source}`, 'g');

/** `text` with every credential-shaped run replaced by `[redacted]`; the same string when there is none. */
export function redactCredentials(text: string): string {
  // The quick test first: almost no URL holds either prefix, and this runs on every logged request.
  if (!text.includes('svc_') && !text.includes('eyJ')) return text;
  return text.replace(CREDENTIALS_IN_TEXT, '[redacted]');
}

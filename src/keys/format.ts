import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { KEY_IN_TEXT } from '../callers/shapes.ts';

// The shape of a key (docs/security.md, API keys): `svc_`, a public id of 12 base62 characters, `_`, a secret
// of 43 base62 characters (exactly 32 random bytes: 62^43 > 2^256) and a CRC32 checksum of
// everything before it in 6 base62 characters (62^6 > 2^32). 66 characters in all, as GitHub's
// tokens: a readable prefix, base62, a checksum, so a key is recognisable by its shape alone.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'svc_';
const ID_LENGTH = 12;
const SECRET_LENGTH = 43;
const SECRET_BYTES = 32;
const CHECKSUM_LENGTH = 6;

/** The length of every key. */
export const KEY_LENGTH = PREFIX.length + ID_LENGTH + 1 + SECRET_LENGTH + CHECKSUM_LENGTH;

/** The pattern for secret scanners (gitleaks, GitHub custom patterns): a key anywhere in a text. */
export const KEY_SCANNER_PATTERN: RegExp = KEY_IN_TEXT;

/** A key's public id, as the API and the CLI name keys (`/api/keys/{id}`). */
export const KEY_ID_PATTERN = /^[0-9A-Za-z]{12}$/;

const KEY_SHAPE = /^svc_([0-9A-Za-z]{12})_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;

/** `value` in base62, left-padded with zeros to exactly `width` characters. */
export function base62(value: bigint, width: number): string {
  let text = '';
  for (let rest = value; rest > 0n; rest /= 62n) text = (ALPHABET[Number(rest % 62n)] as string) + text;
  if (text.length > width) throw new RangeError(`${value} needs more than ${width} base62 digits`);
  return text.padStart(width, '0');
}

// Uniform over the alphabet: bytes of 248 and above are dropped, so no character is likelier than another.
function randomBase62(length: number): string {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && text.length < length) text += ALPHABET[byte % 62];
    }
  }
  return text;
}

function checksumOf(body: string): string {
  return base62(BigInt(crc32(body)), CHECKSUM_LENGTH);
}

/** A new key from node:crypto's random bytes, and its public id. */
export function generateKey(): { id: string; key: string } {
  const id = randomBase62(ID_LENGTH);
  const secret = base62(BigInt(`0x${randomBytes(SECRET_BYTES).toString('hex')}`), SECRET_LENGTH);
  const body = `${PREFIX}${id}_${secret}`;
  return { id, key: body + checksumOf(body) };
}

/** The public id of `text` when it has a key's shape and a valid checksum; null otherwise (no I/O). */
export function parseKey(text: string): string | null {
  if (text.length !== KEY_LENGTH) return null;
  const match = KEY_SHAPE.exec(text);
  if (match === null) return null;
  return checksumOf(text.slice(0, -CHECKSUM_LENGTH)) === match[3] ? (match[1] as string) : null;
}

/** The SHA-256 of a whole key: what is stored instead of it (base64url text) and compared. */
export function keyDigest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

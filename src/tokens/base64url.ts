const ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of `text` if it is base64url exactly as RFC 7515 §2 writes it (no padding, no white
 * space, no other alphabet, unused trailing bits zero), else null. Node's own decoder forgives all
 * of these, and a forgiving decoder lets one signature be written several ways.
 */
export function decodeBase64url(text: string): Buffer | null {
  if (text.length % 4 === 1 || !ALPHABET.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  // Only the canonical spelling survives a round trip: nonzero trailing bits come back as zeros.
  return bytes.toString('base64url') === text ? bytes : null;
}

/**
 * The bytes of `text` if it is base64url exactly as RFC 7515 §2 writes it (no padding, no white
 * space, no other alphabet, unused trailing bits zero), else null. Node's own decoder forgives all
 * of these, and a forgiving decoder lets one signature be written several ways.
 */
export function decodeBase64url(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url');
  // Only the canonical spelling survives the round trip: whatever the decoder forgave is not written back.
  return bytes.toString('base64url') === text ? bytes : null;
}

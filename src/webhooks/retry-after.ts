/** The largest number of seconds read from a `Retry-After`: anything longer is capped later anyway. */
const MAX_SECONDS = 10 * 365 * 24 * 3600;

/**
 * How long a `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) asks to wait, in
 * milliseconds from `nowMs`; 0 for a date in the past; null when it is neither.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_SECONDS) * 1000;
  // An HTTP-date names a weekday and a month in letters; a bare number or anything else is not one.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

function hostLines(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request needs exactly one Host line. node:http would refuse a missing
 * one without our headers and takes the first of several, so the app checks it (a 400 problem).
 */
export function checkHostHeader(req: IncomingMessage): void {
  if (req.httpVersion !== '1.1') return;
  const lines = hostLines(req.rawHeaders);
  if (lines === 1) return;
  const detail = lines === 0 ? 'An HTTP/1.1 request needs a Host header.' : 'A request must not carry several Host headers.';
  throw new HttpError('bad_request', { detail });
}

import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { type ErrorCode, ERRORS, reasonPhrase } from './errors.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

const SECURITY_LINES = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

// node:http's parser and timeout errors; anything else it cannot parse is bad_request.
const CODE_BY_NODE_ERROR: Readonly<Record<string, ErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  HPE_URI_TOO_LONG: 'uri_too_long',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADERS_TIMEOUT: 'request_timeout',
};

/**
 * Answers a request node:http could not parse (or that timed out) with a problem document and the
 * same security headers as every other response, instead of Node's bare `400 Bad Request`.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const code = CODE_BY_NODE_ERROR[error.code ?? ''] ?? 'bad_request';
  const { status, detail } = ERRORS[code];
  const requestId = randomUUID();
  const body = JSON.stringify({ type: 'about:blank', title: reasonPhrase(status), status, code, detail, instance: '', requestId });
  socket.end(
    `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\n${SECURITY_LINES}x-request-id: ${requestId}\r\n` +
      `content-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

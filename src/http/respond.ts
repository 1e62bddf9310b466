import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, reasonPhrase } from './errors.ts';
import { problemFor } from './problem.ts';
import type { Reply } from './reply.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

// Flattened once: writeHead takes [name, value, name, value…] without copying objects.
const BASE_HEADERS: readonly string[] = Object.entries(SECURITY_HEADERS).flat();
// For a reply that brings its own Content-Security-Policy (the HTML page): the rest, the same.
const BASE_HEADERS_BUT_CSP: readonly string[] = Object.entries(SECURITY_HEADERS)
  .filter(([name]) => name !== 'content-security-policy')
  .flat();
const NO_HEADERS: readonly string[] = [];
const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json';

// A request whose body was not read to the end (refused early, cut off) must not leave
// the rest on a kept-alive connection: the next request would be parsed from it.
function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

// node:http's parser stops reading a connection after an Upgrade request that no one upgraded,
// so the next request on it would hang: such a connection closes after its answer.
function mustClose(req: IncomingMessage, status: number, extra: Readonly<Record<string, string>>): boolean {
  if (extra['connection'] !== undefined) return false;
  return req.headers.upgrade !== undefined || (status >= 400 && hasUnreadBody(req));
}

function baseHeaders(extra: Readonly<Record<string, string>>): readonly string[] {
  return extra['content-security-policy'] === undefined ? BASE_HEADERS : BASE_HEADERS_BUT_CSP;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  extra: Readonly<Record<string, string>>,
  requestId: string,
  cors: readonly string[],
): void {
  const headers = [...baseHeaders(extra), ...cors, 'x-request-id', requestId, 'content-type', type, 'content-length', String(Buffer.byteLength(text))];
  for (const name in extra) headers.push(name, extra[name] as string);
  if (mustClose(req, status, extra)) headers.push('connection', 'close');
  res.writeHead(status, reasonPhrase(status), headers);
  res.end(text);
}

// 204 and 304 have no body, so no Content-Type or Content-Length either (RFC 9110 §8.6, §15.4.5).
function sendEmpty(res: ServerResponse, status: number, extra: Readonly<Record<string, string>>, requestId: string, cors: readonly string[]): void {
  const headers = [...BASE_HEADERS, ...cors, 'x-request-id', requestId];
  for (const name in extra) headers.push(name, extra[name] as string);
  res.writeHead(status, reasonPhrase(status), headers);
  res.end();
}

/**
 * Writes a handler's reply as JSON (or HTML, or with no body) with the headers every response carries,
 * and `cors`, the CORS headers of its request (name, value, …).
 */
export function sendReply(req: IncomingMessage, res: ServerResponse, reply: Reply, requestId: string, cors: readonly string[] = NO_HEADERS): void {
  const extra = reply.headers ?? {};
  if (reply.html !== undefined) return send(req, res, reply.status, HTML_TYPE, reply.html, extra, requestId, cors);
  if (reply.json === undefined && reply.body === undefined) return sendEmpty(res, reply.status, extra, requestId, cors);
  send(req, res, reply.status, JSON_TYPE, reply.json ?? JSON.stringify(reply.body), extra, requestId, cors);
}

/** Writes any error as an RFC 9457 problem document, with the CORS headers `cors`; unexpected ones say nothing internal. */
export function sendProblem(req: IncomingMessage, res: ServerResponse, error: unknown, path: string, requestId: string, cors: readonly string[] = NO_HEADERS): void {
  const problem = problemFor(error, path, requestId);
  const headers = error instanceof HttpError ? error.headers : {};
  send(req, res, problem.status, PROBLEM_TYPE, JSON.stringify(problem), headers, requestId, cors);
}

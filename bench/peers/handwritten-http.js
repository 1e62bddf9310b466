// What the hand-written peer's endpoints share: the response (the service's headers as one array
// for writeHead), problem documents, request ids, the Host rule, the query and the paging cursors.
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { STATUS_CODES } from 'node:http';
import { HEADERS, JSON_TYPE } from './headers.js';

const PROBLEM_TYPE = 'application/problem+json';
// RFC 9110's phrases where node:http still has the older ones, as the service sends them.
const PHRASES = { ...STATUS_CODES, 413: 'Content Too Large', 422: 'Unprocessable Content' };

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is safe to echo, else a new UUID (as the service). */
export const requestIdOf = (header) => (typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID());

/** Writes a JSON response: the security headers, the request id, its type and length, then `extra` ([name, value, …]). */
export function send(res, status, json, requestId, extra, type = JSON_TYPE) {
  const headers = [...HEADERS, 'x-request-id', requestId, 'content-type', type, 'content-length', String(Buffer.byteLength(json))];
  if (extra !== undefined) headers.push(...extra);
  res.writeHead(status, PHRASES[status], headers);
  res.end(json);
}

/** Writes an RFC 9457 problem document with the service's members; `more` adds `errors`. */
export function problem(res, status, code, detail, { path, requestId, errors, headers } = {}) {
  const body = { type: 'about:blank', title: PHRASES[status], status, code, detail, instance: path, requestId };
  if (errors !== undefined) body.errors = errors;
  send(res, status, JSON.stringify(body), requestId, headers, PROBLEM_TYPE);
}

/** RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host line (node:http takes the first of several). */
export function hasOneHost(req) {
  if (req.httpVersion !== '1.1') return true;
  let count = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') count++;
  return count === 1;
}

/**
 * `limit`, `cursor` and `status` of a query string, first occurrence of each (URLSearchParams.get's
 * rule); percent-escapes and `+` are decoded by URLSearchParams, the plain case by hand.
 */
export function listParams(query) {
  if (query.includes('%') || query.includes('+')) {
    const params = new URLSearchParams(query);
    return { limit: params.get('limit'), cursor: params.get('cursor'), status: params.get('status') };
  }
  const found = { limit: null, cursor: null, status: null };
  for (const part of query.split('&')) {
    const equals = part.indexOf('=');
    const name = equals === -1 ? part : part.slice(0, equals);
    if (Object.hasOwn(found, name) && found[name] === null) found[name] = equals === -1 ? '' : part.slice(equals + 1);
  }
  return found;
}

// The service's cursor (its paging module): the list's name and an id, with a 4-byte CRC-32 checksum.
const checksumOf = (text) => {
  const checksum = Buffer.allocUnsafe(4);
  checksum.writeUInt32BE(crc32(text), 0);
  return checksum;
};

/** The opaque cursor for "ids below `beforeId`" of `list` (`products`, `products;status=2`). */
export function encodeCursor(list, beforeId) {
  const text = `${list}:${beforeId}`;
  return Buffer.concat([Buffer.from(text, 'latin1'), checksumOf(text)]).toString('base64url');
}

/** The id a cursor stands for, or null when it is not one issued for `list` (the service's rules). */
export function decodeCursor(list, cursor) {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= 4 || bytes.toString('base64url') !== cursor) return null;
  const text = bytes.subarray(0, -4).toString('latin1');
  if (!bytes.subarray(-4).equals(checksumOf(text))) return null;
  const colon = text.lastIndexOf(':');
  const digits = text.slice(colon + 1);
  if (text.slice(0, colon) !== list || !/^[1-9]\d{0,15}$/.test(digits)) return null;
  const id = Number(digits);
  return Number.isSafeInteger(id) ? id : null;
}

/** A product's JSON, in the service's member order; every string escaped as JSON.stringify does. */
export const productJson = (id, name, price, status, createdAt, updatedAt) =>
  `{"id":${id},"name":${JSON.stringify(name)},"priceInCents":${price},"status":${status},"createdAt":${JSON.stringify(createdAt)},"updatedAt":${JSON.stringify(updatedAt)}}`;

const STRINGIFY_PAGES = process.env.JSON === 'stringify';

/**
 * The JSON array of the first `count` rows (id, name, price_in_cents, status, created_at, updated_at, …),
 * built as one string; with JSON=stringify, as plain objects given to one JSON.stringify instead (on
 * Node 24, V8's fast path for plain objects can beat the string built by hand: bench/list-costs.js).
 */
export function pageJson(rows, count) {
  if (STRINGIFY_PAGES) return stringifiedPage(rows, count);
  let json = '[';
  for (let i = 0; i < count; i++) {
    const row = rows[i];
    json += (i === 0 ? '' : ',') + productJson(row[0], row[1], row[2], row[3], row[4], row[5]);
  }
  return `${json}]`;
}

function stringifiedPage(rows, count) {
  const items = new Array(count);
  for (let i = 0; i < count; i++) {
    const row = rows[i];
    items[i] = { id: row[0], name: row[1], priceInCents: row[2], status: row[3], createdAt: row[4], updatedAt: row[5] };
  }
  return JSON.stringify(items);
}

/** A 400 invalid_query error for one parameter, as the service words it. */
export const invalidQuery = (parameter, code, detail) => ({ status: 400, code: 'invalid_query', detail, errors: [{ parameter, code, detail }] });

// The credential work every peer does when AUTH is keys or jwt: the same checks as the service's
// (README: API keys, access tokens), written as a user of node:crypto and jose would write them.
// AUTH=off (default): none. AUTH=keys: an API key, looked up by its public id in `api_keys` through
// the `find` a peer gives (its own database, its own client), cached for KEY_CACHE_MS (2000, as the
// service does; 0: a lookup on every request). AUTH=jwt: a JWT access token verified by jose's
// jwtVerify against the issuer's JWKS (JWT_JWKS_URL, fetched once and cached by jose, fetched again
// for an unknown kid), with JWT_ISSUER and JWT_AUDIENCE.
import { createHash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export const AUTH = process.env.AUTH || 'off';
if (!['off', 'keys', 'jwt'].includes(AUTH)) throw new Error(`AUTH must be off, keys or jwt, got ${AUTH}`);

/** Scopes as the service numbers them: each includes those below it. */
export const SCOPES = { read: 1, write: 2, admin: 3 };

// RFC 6750 §2.1, as the service parses it: `Bearer` (any case), spaces, a b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const KEY_SHAPE = /^svc_([0-9A-Za-z]{12})_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;
const KEY_LENGTH = 66;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A CRC32 as 6 base62 digits (62^6 > 2^32), the checksum that ends every key. */
export function checksumOf(body) {
  let rest = crc32(body);
  let text = '';
  for (let i = 0; i < 6; i++) {
    text = ALPHABET[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

/** The public id of a key with a valid shape and checksum, or null (no I/O). */
export function parseKey(text) {
  if (text.length !== KEY_LENGTH) return null;
  const match = KEY_SHAPE.exec(text);
  if (match === null) return null;
  return checksumOf(text.slice(0, -6)) === match[3] ? match[1] : null;
}

/** The SHA-256 of the whole key, as the database stores it (base64url there). */
export const keyDigest = (key) => createHash('sha256').update(key).digest();

const refused = (status, reason) => ({ ok: false, status, reason });
const MISSING = refused(401, 'missing');
const MALFORMED = refused(401, 'malformed');

const scopesFromText = (text) => text.split(' ').map((name) => SCOPES[name]).filter((scope) => scope !== undefined);

// A row of api_keys as the check keeps it: decoded once, judged on every request.
function knownFrom(row, readAt) {
  // Rows as arrays in this column order: id, scopes, digest, expires_at, revoked_at.
  return {
    caller: { id: row[0], scopes: scopesFromText(row[1]) },
    digest: Buffer.from(row[2], 'base64url'),
    expiresAt: row[3] === null ? null : Date.parse(row[3]),
    revoked: row[4] !== null,
    readAt,
  };
}

// The order of the service's check: the whole key's digest in constant time, expiry, revocation.
function judge(known, key) {
  const presented = keyDigest(key);
  if (presented.length !== known.digest.length || !timingSafeEqual(presented, known.digest)) return refused(401, 'invalid');
  if (known.expiresAt !== null && Date.now() >= known.expiresAt) return refused(401, 'expired');
  if (known.revoked) return refused(401, 'revoked');
  return { ok: true, caller: known.caller };
}

/**
 * The API-key check on `find(id)` (a row [id, scopes, digest, expires_at, revoked_at] or undefined,
 * or a promise of one): synchronous when the key is cached or `find` is.
 */
export function keyCheck(find, cacheMs = Number(process.env.KEY_CACHE_MS ?? 2000)) {
  const known = new Map();
  // One read per id at a time, as the service does: requests meanwhile wait for the same answer.
  const reading = new Map();
  const entryOf = (id, row, readAt) => {
    if (row === undefined) return null;
    const entry = knownFrom(row, readAt);
    if (cacheMs > 0) known.set(id, entry);
    return entry;
  };
  const read = (id, readAt) => {
    const underWay = reading.get(id);
    if (underWay !== undefined) return underWay;
    const row = find(id);
    if (!(row instanceof Promise)) return entryOf(id, row, readAt);
    const promise = row.then((found) => entryOf(id, found, readAt)).finally(() => reading.delete(id));
    reading.set(id, promise);
    return promise;
  };
  const settle = (entry, key) => (entry === null ? refused(401, 'unknown') : judge(entry, key));
  return (key) => {
    const id = parseKey(key);
    if (id === null) return MALFORMED;
    const readAt = performance.now();
    const cached = known.get(id);
    if (cached !== undefined && readAt - cached.readAt < cacheMs) return judge(cached, key);
    const entry = read(id, readAt);
    return entry instanceof Promise ? entry.then((found) => settle(found, key)) : settle(entry, key);
  };
}

/** The access-token check: jose's jwtVerify against the issuer's JWKS, scopes from `scope` or `scp`. */
export function tokenCheck({ jwksUrl = process.env.JWT_JWKS_URL, issuer = process.env.JWT_ISSUER, audience = process.env.JWT_AUDIENCE } = {}) {
  const jwks = createRemoteJWKSet(new URL(jwksUrl));
  const options = { issuer, audience, algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'], clockTolerance: 60 };
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, jwks, options);
      const names = typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? payload.scp : [];
      return { ok: true, caller: { id: payload.sub, scopes: names.map((name) => SCOPES[name]).filter((scope) => scope !== undefined) } };
    } catch {
      return refused(401, 'invalid');
    }
  };
}

/** Whether granted scopes allow an operation that needs `needed` (admin includes write, write read). */
export const allows = (scopes, needed) => scopes.some((scope) => scope >= needed);

/**
 * Who sent a request, from its Authorization field, with `check` (keyCheck or tokenCheck); then
 * whether it has `needed`: { ok, caller } or { ok: false, status: 401|403, reason }.
 */
export function identify(check, authorization, needed) {
  if (authorization === undefined || !/^Bearer +\S/i.test(authorization)) return MISSING;
  const credential = BEARER.exec(authorization)?.[1];
  if (credential === undefined) return MALFORMED;
  const identified = check(credential);
  return identified instanceof Promise ? identified.then((result) => withScope(result, needed)) : withScope(identified, needed);
}

const withScope = (identified, needed) => (identified.ok && !allows(identified.caller.scopes, needed) ? refused(403, 'insufficient_scope') : identified);

/** The check of AUTH on `findKey` (keys only), or null when AUTH is off. */
export function checkFor(findKey) {
  if (AUTH === 'keys') return keyCheck(findKey);
  if (AUTH === 'jwt') return tokenCheck();
  return null;
}

// On PostgreSQL the times are formatted by the server into the text SQLite stores, as the service reads them.
const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The SQL both engines' peers read a key with: the columns knownFrom expects, by the unique id. */
export const KEY_SQL = {
  sqlite: 'SELECT id, scopes, digest, expires_at, revoked_at FROM api_keys WHERE id = ?',
  postgres: `SELECT id, scopes, digest, ${iso('expires_at')}, ${iso('revoked_at')} FROM api_keys WHERE id = $1`,
};

/** The WWW-Authenticate challenge of a refusal (RFC 6750 §3). */
export function challengeOf(refusal) {
  if (refusal.status === 403) return 'Bearer error="insufficient_scope"';
  return refusal.reason === 'missing' ? 'Bearer' : 'Bearer error="invalid_token"';
}

// The credentials of the auth rows: API keys seeded into every database (the service's key format
// and `api_keys` table), and JWT access tokens signed by a local key pair whose JWKS a loopback
// server in this process publishes (with an OpenID discovery document) for every server to fetch.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { psqlAt } from '../../test/support/postgres.ts';
import { checksumOf, keyDigest } from '../peers/credentials.js';
import { POSTGRES_KEYS_TABLE, SQLITE_KEYS_TABLE } from './keys-table.js';

/** The auth modes of the benchmark, as SVC_AUTH names them. */
export const AUTH_MODES = ['off', 'keys', 'jwt'];
export const AUTH_LABEL = { off: 'auth off', keys: 'API keys', jwt: 'access tokens' };

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomBase62 = (length) => [...randomBytes(length)].map((byte) => ALPHABET[byte % 62]).join('');

// A key of the service's shape: svc_ + 12-character id + _ + 43-character secret + CRC32 in 6 (66 in all).
function newKey() {
  const id = randomBase62(12);
  const body = `svc_${id}_${randomBase62(43)}`;
  return { id, key: body + checksumOf(body) };
}

const CREATED = '2026-01-01T00:00:00.000Z';

// The keys every database holds: the one under load (read write), and those the checks use.
function benchKeys() {
  const make = (name, scopes, { expiresAt = null, revokedAt = null } = {}) => ({ ...newKey(), name, scopes, expiresAt, revokedAt });
  const keys = {
    readWrite: make('bench read write', 'read write'),
    readOnly: make('bench read only', 'read'),
    revoked: make('bench revoked', 'read write', { revokedAt: CREATED }),
    expired: make('bench expired', 'read write', { expiresAt: '2026-01-02T00:00:00.000Z' }),
  };
  // Other callers' keys, so the lookup is an index search among many.
  const others = Array.from({ length: 200 }, (_, i) => make(`other ${i}`, i % 2 === 0 ? 'read' : 'read write'));
  return { keys, rows: [...Object.values(keys), ...others] };
}

const rowOf = (k) => [k.id, k.name, k.scopes, keyDigest(k.key).toString('base64url'), CREATED, k.expiresAt, k.revokedAt];
const sqlText = (value) => (value === null ? 'NULL' : `'${value.replaceAll("'", "''")}'`);

/** Seeds the keys into a SQLite database at `path`, making `api_keys` first when its build predates it. */
export function seedKeysSqlite(path, rows) {
  const db = new DatabaseSync(path);
  try {
    if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'api_keys'").get() === undefined) db.exec(SQLITE_KEYS_TABLE);
    const insert = db.prepare('INSERT INTO api_keys (id, name, scopes, digest, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    db.exec('BEGIN');
    for (const row of rows) insert.run(...rowOf(row));
    db.exec('COMMIT');
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** Seeds the keys into a PostgreSQL database (as its owner, the login role), making `api_keys` when missing. */
export async function seedKeysPostgres(url, rows) {
  const exists = await psqlAt(url, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'api_keys'");
  const values = rows.map((row) => `(${rowOf(row).map(sqlText).join(', ')})`).join(',\n');
  await psqlAt(url, [
    ...(exists === '0' ? [POSTGRES_KEYS_TABLE] : []),
    `INSERT INTO api_keys (id, name, scopes, digest, created_at, expires_at, revoked_at) VALUES ${values}`,
    'VACUUM ANALYZE api_keys',
  ]);
}

// The JWKS and OpenID discovery document of the local issuer, on 127.0.0.1 (http is allowed there).
function startIssuer(jwks) {
  const fetches = { count: 0 };
  const server = createServer((req, res) => {
    const documents = { '/jwks.json': jwks, '/.well-known/openid-configuration': { issuer: server.issuer, jwks_uri: `${server.issuer}/jwks.json` } };
    const body = documents[req.url];
    if (req.url === '/jwks.json') fetches.count++;
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? {}));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      server.issuer = `http://127.0.0.1:${server.address().port}`;
      resolve({ server, fetches });
    });
  });
}

/** An RFC 9068 access token for `audience` from `issuer`, with `scope`, valid for hours. */
async function accessToken(privateKey, { alg, kid, issuer, audience, scope, expiresAt = '6h' }) {
  return new SignJWT({ scope, client_id: 'bench-client' })
    .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject('bench-client')
    .setJti(randomBase62(16))
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(privateKey);
}

/**
 * Everything the auth rows need: the keys (seeded by seedKeys*), tokens signed by a key of the
 * local issuer's JWKS (BENCH_JWT_ALG: RS256 by default, PS256, ES256 or EdDSA), the issuer's
 * settings, and `close()`.
 */
export async function benchCredentials(alg = process.env.BENCH_JWT_ALG || 'RS256') {
  const { keys, rows } = benchKeys();
  const signing = await generateKeyPair(alg, { extractable: true });
  const stranger = await generateKeyPair(alg, { extractable: true });
  const kid = `bench-${alg.toLowerCase()}`;
  const jwks = { keys: [{ ...(await exportJWK(signing.publicKey)), kid, alg, use: 'sig' }] };
  const { server, fetches } = await startIssuer(jwks);
  const jwt = { issuer: server.issuer, audience: 'svc-bench', jwksUrl: `${server.issuer}/jwks.json`, alg };
  const sign = (scope, { key = signing.privateKey, ...claims } = {}) => accessToken(key, { alg, kid, issuer: jwt.issuer, audience: jwt.audience, scope, ...claims });
  const tokens = {
    readWrite: await sign('read write'),
    readOnly: await sign('read'),
    // Signed by a key that is not in the issuer's JWKS, under a kid that is: a bad signature.
    forged: await sign('read write', { key: stranger.privateKey }),
    otherAudience: await sign('read write', { audience: 'another-api' }),
    otherIssuer: await sign('read write', { issuer: 'http://127.0.0.1:1' }),
    // Expired well beyond the 60 s of clock skew allowed.
    expired: await sign('read write', { expiresAt: Math.floor(Date.now() / 1000) - 600 }),
  };
  return { keys, keyRows: rows, tokens, jwt, jwksFetches: fetches, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The credential a contender is loaded with in `mode` (undefined when off). */
export function credentialFor(credentials, mode, grant = 'readWrite') {
  if (mode === 'keys') return credentials.keys[grant].key;
  if (mode === 'jwt') return credentials.tokens[grant];
  return undefined;
}

/** `request` with the Authorization header of `mode`'s read-write credential. */
export function withCredential(request, credentials, mode) {
  const credential = credentialFor(credentials, mode);
  if (credential === undefined) return request;
  return { ...request, headers: { ...request.headers, authorization: `Bearer ${credential}` } };
}

/** The environment a peer needs for `mode`. */
export function peerAuthEnv(credentials, mode) {
  if (mode === 'off') return {};
  const base = { AUTH: mode };
  if (mode === 'keys') return base;
  return { ...base, JWT_JWKS_URL: credentials.jwt.jwksUrl, JWT_ISSUER: credentials.jwt.issuer, JWT_AUDIENCE: credentials.jwt.audience };
}

/** The environment the service needs for `mode` (README: Configuration, SVC_AUTH and SVC_JWT_*). */
export function serviceAuthEnv(credentials, mode) {
  if (mode === 'off') return {};
  if (mode === 'keys') return { SVC_AUTH: 'keys' };
  return { SVC_AUTH: 'jwt', SVC_JWT_ISSUER: credentials.jwt.issuer, SVC_JWT_AUDIENCE: credentials.jwt.audience, SVC_JWT_JWKS_URL: credentials.jwt.jwksUrl };
}

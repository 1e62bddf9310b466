// The hand-written peer: what node:http and node:sqlite can do by hand for the service's three
// benchmarked endpoints, doing the same work as the service (issue 19's "limit to compare against"):
// the same SQL through one prepared statement per query returning arrays, the JSON of a page built as
// one string (every string escaped by JSON.stringify, as the service's JSON.stringify does), the same
// security headers and request ids, the same readiness read, the same create rules (every error at
// once), Location and ETag, checksummed keyset cursors and Link, and, with AUTH=keys|jwt, the same
// credential work (peers/credentials.js). Creates commit one by one (autocommit, no group commit) at
// the service's durability: DURABILITY=full (default, fsync of every commit) or normal. Not served:
// Idempotency-Key, items by id, PATCH and DELETE (the benchmark does not call them).
import { createServer } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { checkFor, challengeOf, identify, KEY_SQL, SCOPES } from './credentials.js';
import { parseBody, readBody, refuseBodyHeaders, validateProduct } from './handwritten-create.js';
import { decodeCursor, encodeCursor, hasOneHost, invalidQuery, listParams, pageJson, problem, productJson, requestIdOf, send } from './handwritten-http.js';

const EXPECTED_VERSION = Number(process.env.EXPECTED_VERSION ?? 2);
const db = new DatabaseSync(process.env.DB_PATH);
db.exec(`PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = ${process.env.DURABILITY === 'normal' ? 'NORMAL' : 'FULL'}; PRAGMA foreign_keys = ON`);

const COLUMNS = 'id, name, price_in_cents, status, created_at, updated_at, version';
const statements = {
  version: db.prepare('SELECT (SELECT user_version FROM pragma_user_version) AS v, (SELECT count(*) FROM sqlite_schema) AS n'),
  page: db.prepare(`SELECT ${COLUMNS} FROM products WHERE id < ? ORDER BY id DESC LIMIT ?`),
  pageOfStatus: db.prepare(`SELECT ${COLUMNS} FROM products WHERE status = ? AND id < ? ORDER BY id DESC LIMIT ?`),
  // A create in the default API version gets the default currency (SVC_DEFAULT_CURRENCY, EUR), as in the service.
  insert: db.prepare("INSERT INTO products (name, price_in_cents, price_currency, status, created_at, updated_at) VALUES (?, ?, 'EUR', ?, ?, ?)"),
};
for (const read of [statements.version, statements.page, statements.pageOfStatus]) read.setReturnArrays(true);

// Keys are read only with AUTH=keys: the statement is prepared then, so `api_keys` need not exist otherwise.
const keyStatement = process.env.AUTH === 'keys' ? db.prepare(KEY_SQL.sqlite) : null;
keyStatement?.setReturnArrays(true);
const credentials = checkFor((id) => keyStatement.get(id));

// The three Readiness bodies, made once.
const readiness = (status, database, schema) => JSON.stringify({ status, checks: { database, schema } });
const READY = readiness(1, 1, 1);
const WRONG_SCHEMA = readiness(2, 1, 2);
const DOWN = readiness(2, 2, 2);

function ping(res, requestId) {
  let version = null;
  try {
    version = Number(statements.version.get()[0]);
  } catch {
    // unreadable: answered as unavailable
  }
  if (version === EXPECTED_VERSION) return send(res, 200, READY, requestId);
  send(res, 503, version === null ? DOWN : WRONG_SCHEMA, requestId);
}

// The page asked for, or a failure: limit 1..200 (default 50), a cursor of this list, status 1 or 2.
function pageRequest(query) {
  const params = listParams(query);
  const limitDetail = 'limit must be an integer from 1 to 200';
  if (params.status !== null && params.status !== '1' && params.status !== '2') return { failure: invalidQuery('status', 'invalid_enum', 'status must be one of 1, 2') };
  const status = params.status === null ? null : Number(params.status);
  let limit = 50;
  if (params.limit !== null) {
    if (!/^\d{1,16}$/.test(params.limit)) return { failure: invalidQuery('limit', 'not_integer', limitDetail) };
    limit = Number(params.limit);
    if (limit < 1 || limit > 200) return { failure: invalidQuery('limit', limit < 1 ? 'too_small' : 'too_large', limitDetail) };
  }
  const list = status === null ? 'products' : `products;status=${status}`;
  let beforeId = Number.MAX_SAFE_INTEGER;
  if (params.cursor !== null) {
    beforeId = decodeCursor(list, params.cursor);
    if (beforeId === null) return { failure: invalidQuery('cursor', 'invalid_cursor', 'cursor is not one this service issued for this list and filter') };
  }
  return { limit, status, list, beforeId };
}

function list(res, requestId, path, query) {
  const asked = pageRequest(query);
  if (asked.failure !== undefined) return fail(res, asked.failure, path, requestId);
  const { limit, status, list: name, beforeId } = asked;
  // One row more than asked tells whether a next page exists.
  const rows = status === null ? statements.page.all(beforeId, limit + 1) : statements.pageOfStatus.all(status, beforeId, limit + 1);
  const json = pageJson(rows, Math.min(rows.length, limit));
  if (rows.length <= limit) return send(res, 200, json, requestId);
  const filter = status === null ? '' : `&status=${status}`;
  send(res, 200, json, requestId, ['link', `</api/products?limit=${limit}${filter}&cursor=${encodeCursor(name, rows[limit - 1][0])}>; rel="next"`]);
}

function create(req, res, requestId, path) {
  const refusal = refuseBodyHeaders(req);
  if (refusal !== null) return fail(res, refusal, path, requestId);
  readBody(req, (failure, buffer) => {
    if (failure !== null) return fail(res, failure, path, requestId);
    const parsed = parseBody(buffer);
    const checked = parsed.failure === undefined ? validateProduct(parsed.body) : parsed;
    if (checked.failure !== undefined) return fail(res, checked.failure, path, requestId);
    const { name, priceInCents, status } = checked.product;
    const at = new Date().toISOString();
    // Autocommit: one transaction, and at DURABILITY=full one fsync, per create.
    const id = Number(statements.insert.run(name, priceInCents, status, at, at).lastInsertRowid);
    send(res, 201, productJson(id, name, priceInCents, status, at, at), requestId, ['location', `/api/products/${id}`, 'etag', '"1"']);
  });
}

function fail(res, failure, path, requestId) {
  const headers = failure.headers ?? (failure.status === 401 || failure.status === 403 ? ['www-authenticate', challengeOf(failure)] : undefined);
  problem(res, failure.status, failure.code, failure.detail, { path, requestId, errors: failure.errors, headers });
}

const REFUSALS = { 401: ['unauthorized', 'The credential is not valid.'], 403: ['forbidden', 'This operation needs another scope.'] };

// Runs `then` once the caller is known to hold `needed` (AUTH on), else answers 401 or 403.
function asCaller(req, res, requestId, path, needed, then) {
  if (credentials === null) return then();
  const refuse = (refusal) => {
    const [code, detail] = REFUSALS[refusal.status];
    fail(res, { ...refusal, code, detail }, path, requestId);
  };
  const identified = identify(credentials, req.headers.authorization, needed);
  if (!(identified instanceof Promise)) return identified.ok ? then() : refuse(identified);
  identified.then((result) => (result.ok ? then() : refuse(result))).catch((error) => unexpected(res, error, path, requestId));
}

function unexpected(res, error, path, requestId) {
  process.stderr.write(`unexpected error: ${error?.message}\n`);
  if (res.headersSent) return res.destroy();
  fail(res, { status: 500, code: 'internal_error', detail: 'An unexpected error occurred.' }, path, requestId);
}

const methodNotAllowed = (allow) => ({ status: 405, code: 'method_not_allowed', detail: 'This method is not allowed on this path.', headers: ['allow', allow] });

function route(req, res, requestId, path, query) {
  if (path === '/api/ping') {
    if (req.method === 'GET' || req.method === 'HEAD') return ping(res, requestId);
    return fail(res, methodNotAllowed('GET, HEAD'), path, requestId);
  }
  if (path !== '/api/products') return fail(res, { status: 404, code: 'not_found', detail: 'No resource exists at this path.' }, path, requestId);
  if (req.method === 'GET' || req.method === 'HEAD') return asCaller(req, res, requestId, path, SCOPES.read, () => list(res, requestId, path, query));
  if (req.method === 'POST') return asCaller(req, res, requestId, path, SCOPES.write, () => create(req, res, requestId, path));
  fail(res, methodNotAllowed('GET, HEAD, POST'), path, requestId);
}

function handle(req, res) {
  const requestId = requestIdOf(req.headers['x-request-id']);
  const url = req.url;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  try {
    if (!hasOneHost(req)) return fail(res, { status: 400, code: 'bad_request', detail: 'An HTTP/1.1 request needs exactly one Host header.' }, path, requestId);
    route(req, res, requestId, path, queryAt === -1 ? '' : url.slice(queryAt + 1));
  } catch (error) {
    unexpected(res, error, path, requestId);
  }
}

// The service's server settings (its configuration defaults).
const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 65_000, connectionsCheckingInterval: 1_000, requireHostHeader: false }, handle);
server.maxConnections = 10_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});

// `node bench/list-costs.js [iterations]`: what each stage of a list request of 50 costs, ours (the
// checkout's own modules, run from the TypeScript sources) beside the hand-written peer's way
// (peers/handwritten-http.js), in this process and without sockets: the parts of the request path
// that differ between the two, timed one by one, then the whole path above the socket. A companion to
// `node bench/profile.js list`: a profile puts a native call (SQLite's, JSON.stringify) on the line
// that makes it and mixes every stage's garbage into one GC figure; this times each stage alone.
// Each figure is the lowest mean of several runs of `iterations` calls (the least disturbed run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createStorage } from '../src/db/engine.ts';
import { logRequest } from '../src/http/access-log.ts';
import { createClientAddressResolver } from '../src/http/client-address.ts';
import { checkHostHeader } from '../src/http/host-header.ts';
import { nextLink, parseEnumFilter, parsePageRequest } from '../src/http/paging.ts';
import { requestIdFrom } from '../src/http/request-id.ts';
import { parseRequestTarget } from '../src/http/request-target.ts';
import { createRouter } from '../src/http/router.ts';
import { SECURITY_HEADERS } from '../src/http/security-headers.ts';
import { createLogger } from '../src/log/logger.ts';
import { PRODUCT_STATUSES } from '../src/products/model.ts';
import { presentProduct } from '../src/products/presenter.ts';
import { addProductRoutes } from '../src/products/routes.ts';
import { createProductUseCases } from '../src/products/use-cases.ts';
import { addReadinessRoutes } from '../src/readiness/routes.ts';
import { addWorkspaceRoutes } from '../src/workspaces/routes.ts';
import { createWorkspaceUseCases } from '../src/workspaces/use-cases.ts';
import { seededDatabase } from './lib/database.js';
import { encodeCursor, hasOneHost, listParams, pageJson, requestIdOf } from './peers/handwritten-http.js';
import { HEADERS } from './peers/headers.js';

const iterations = Number(process.argv[2] ?? 20_000);
const RUNS = 7;
const dir = mkdtempSync(join(tmpdir(), 'svc-list-costs-'));
const db = new DatabaseSync(seededDatabase(dir, 'costs', 1_000));
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL');

// Ours, wired as src/app.ts wires it (writes are never called here).
const storage = createStorage(db);
const products = createProductUseCases(storage.products);
const router = createRouter();
addReadinessRoutes(router, storage.readiness, 2);
addProductRoutes(router, products, {});
addWorkspaceRoutes(router, createWorkspaceUseCases(storage.workspaces), {});
const listHandler = router.match('GET', '/api/products').handler;
const logger = createLogger('silent');
const clientAddressOf = createClientAddressResolver([]);
const BASE_HEADERS = Object.entries(SECURITY_HEADERS).flat();
const req = { httpVersion: '1.1', rawHeaders: ['Host', '127.0.0.1:3000', 'Connection', 'keep-alive'], headers: { host: '127.0.0.1:3000' }, url: '/api/products?limit=50' };

// The same statement both servers run.
const page = db.prepare('SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products WHERE id < ? ORDER BY id DESC LIMIT ?');
page.setReturnArrays(true);
const rows = page.all(Number.MAX_SAFE_INTEGER, 51);
const ourPage = await products.list({ limit: 50, beforeId: null, status: null });
const ctxOf = () => ({ req, method: 'GET', path: '/api/products', query: new URLSearchParams('limit=50'), params: {}, requestId: 'r' });

async function time(stage) {
  let best = Infinity;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    for (let i = 0; i < iterations; i++) {
      const result = stage();
      if (result instanceof Promise) await result;
    }
    best = Math.min(best, ((performance.now() - started) * 1000) / iterations);
  }
  return best;
}

// Everything ours does for GET /api/products?limit=50 above the socket (src/app.ts, respond.ts).
async function oursWhole() {
  const target = parseRequestTarget(req.url);
  const ctx = { req, method: 'GET', path: target.path, query: new URLSearchParams(target.query), params: {}, requestId: requestIdFrom(undefined) };
  const remoteAddress = clientAddressOf('127.0.0.1', undefined);
  const match = router.match(ctx.method, ctx.path);
  checkHostHeader(req);
  const reply = await match.handler({ ...ctx, params: match.params });
  const json = JSON.stringify(reply.body);
  const headers = [...BASE_HEADERS, 'x-request-id', ctx.requestId, 'content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(json))];
  for (const name in reply.headers) headers.push(name, reply.headers[name]);
  logRequest(logger, { requestId: ctx.requestId, method: ctx.method, url: target.logged, remoteAddress, statusCode: 200, startedAt: 0 });
  return headers;
}

// The same for the hand-written peer (peers/handwritten.js: handle, route, list, send).
function handwrittenWhole() {
  const requestId = requestIdOf(undefined);
  const queryAt = req.url.indexOf('?');
  const path = req.url.slice(0, queryAt);
  if (!hasOneHost(req) || path !== '/api/products') return null;
  const params = listParams(req.url.slice(queryAt + 1));
  const limit = params.limit === null ? 50 : Number(params.limit);
  const found = page.all(Number.MAX_SAFE_INTEGER, limit + 1);
  const json = pageJson(found, Math.min(found.length, limit));
  const link = `</api/products?limit=${limit}&cursor=${encodeCursor('products', found[limit - 1][0])}>; rel="next"`;
  return [...HEADERS, 'x-request-id', requestId, 'content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(json)), 'link', link];
}

const STAGES = [
  ['read 51 rows as arrays (the same statement)', () => page.all(Number.MAX_SAFE_INTEGER, 51), () => page.all(Number.MAX_SAFE_INTEGER, 51)],
  ['repository + use case: rows to Product objects, the page (async)', () => products.list({ limit: 50, beforeId: null, status: null }), null],
  ['present and serialize 50 products (ours: presentProduct, JSON.stringify; peer: one string), with its byte length',
    () => Buffer.byteLength(JSON.stringify(ourPage.items.map(presentProduct))), () => Buffer.byteLength(pageJson(rows, 50))],
  ['the next link and its checksummed cursor', () => nextLink('/api/products', 'products', { limit: 50, beforeId: null }, ourPage),
    () => `</api/products?limit=50&cursor=${encodeCursor('products', rows[49][0])}>; rel="next"`],
  ['query: limit, cursor, status', () => {
    const query = new URLSearchParams('limit=50');
    return [parseEnumFilter(query, 'status', PRODUCT_STATUSES), parsePageRequest('products', query)];
  }, () => listParams('limit=50')],
  ['request target, route, Host rule, client address', () => [parseRequestTarget(req.url), router.match('GET', '/api/products'), checkHostHeader(req), clientAddressOf('127.0.0.1', undefined)],
    () => [req.url.indexOf('?'), hasOneHost(req)]],
  ['request id (a new UUID)', () => requestIdFrom(undefined), () => requestIdOf(undefined)],
  ['the route handler, awaited (query, use case, present, link; ours only)', () => listHandler(ctxOf()), null],
  ['access log at level silent (ours only)', () => logRequest(logger, { requestId: 'r', method: 'GET', url: req.url, remoteAddress: '127.0.0.1', statusCode: 200, startedAt: 0 }), null],
  ['WHOLE request path above the socket', oursWhole, handwrittenWhole],
];

try {
  console.log(`µs per call, lowest mean of ${RUNS} runs of ${iterations} calls (node ${process.version})`);
  console.log('| stage | ours µs | hand-written µs | ours − hand-written µs |\n| --- | --- | --- | --- |');
  for (const [stage, mine, theirs] of STAGES) {
    const a = await time(mine);
    const b = theirs === null ? NaN : await time(theirs);
    const cell = (value) => (Number.isFinite(value) ? value.toFixed(2) : '–');
    console.log(`| ${stage} | ${cell(a)} | ${cell(b)} | ${cell(a - b)} |`);
  }
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

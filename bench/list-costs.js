// `node bench/list-costs.js [iterations]`: what each stage of a list request of 50 costs, ours (the
// checkout's own modules, run from the TypeScript sources) beside the hand-written peer's way
// (peers/handwritten-http.js), in this process and without sockets: the parts of the request path
// that differ between the two, timed one by one, then the whole path above the socket. A companion to
// `node bench/profile.js list`: a profile puts a native call (SQLite's, JSON.stringify) on the line
// that makes it and mixes every stage's garbage into one GC figure; this times each stage alone.
// Ours is wired as src/app.ts wires it with the default settings (no auth, CORS, rate limit or
// metrics), and a request without Api-Version gets the default version (SVC_API_VERSION unset: the
// first, which shows the page as an array and the price as priceInCents: the peer's bytes). The whole
// path is, for ours, the app's own request listener (createApp, src/http/pipeline.ts) given a stand-in
// request and a response that keeps what writeHead and end get; for the peer, its list path to its
// send() on the same kind of response. Each reads its own statement on its own connection to the same
// file. Each figure is the lowest mean of several runs of `iterations` calls (the least disturbed run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createStorage, defaultSqlDirFor } from '../src/db/engine.ts';
import { latestVersion } from '../src/db/migrate.ts';
import { logRequest } from '../src/http/access-log.ts';
import { createClientAddressResolver } from '../src/http/client-address.ts';
import { refuseMalformedPreconditions } from '../src/http/conditional.ts';
import { NO_CORS } from '../src/http/cors.ts';
import { checkHostHeader } from '../src/http/host-header.ts';
import { listReply, nextLink, parseEnumFilter, parsePageRequest } from '../src/http/paging.ts';
import { requestIdFrom } from '../src/http/request-id.ts';
import { parseRequestTarget } from '../src/http/request-target.ts';
import { createRouter } from '../src/http/router.ts';
import { secretRedactor } from '../src/http/secret-redaction.ts';
import { joined, pinReader, underApi } from '../src/http/version-headers.ts';
import { IdempotentWrites } from '../src/idempotency/idempotent-write.ts';
import { createLogger } from '../src/log/logger.ts';
import { addReadinessRoutes } from '../src/readiness/routes.ts';
import { RESOURCES, VERSIONS } from '../src/registry.ts';
import { presenterIn } from '../src/resources/presenter.ts';
import { repositoryOf } from '../src/resources/repository.ts';
import { addResourceRoutes } from '../src/resources/routes.ts';
import { listedColumns } from '../src/resources/rows.ts';
import { createResourceUseCases } from '../src/resources/use-cases.ts';
import { openDatabase } from '../src/sqlite/database.ts';
import { buildVersions } from '../src/versions/api-versions.ts';
import { negotiator } from '../src/versions/negotiate.ts';
import { seededDatabase } from './lib/database.js';
import { encodeCursor, hasOneHost, listParams, pageJson, requestIdOf, send } from './peers/handwritten-http.js';

const iterations = Number(process.argv[2] ?? 20_000);
const RUNS = 7;
const dir = mkdtempSync(join(tmpdir(), 'svc-list-costs-'));
const path = seededDatabase(dir, 'costs', 1_000);
const db = openDatabase(path);
const peerDb = new DatabaseSync(path);
peerDb.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL');

// Ours, as src/app.ts wires it (writes are never called here): the parts each stage times alone.
const config = loadConfig({});
const logger = createLogger('silent');
const [products] = RESOURCES;
const storage = createStorage(db, { eventRetentionMs: config.events.retentionMs, resources: RESOURCES });
const versions = buildVersions(VERSIONS, RESOURCES, { at: config.versions.sunsets, announcedAt: config.versions.sunsetsAnnouncedAt });
const negotiate = negotiator(versions, config.versions.defaultVersion);
const version = negotiate.unnamed('/api/products', undefined);
const useCases = createResourceUseCases(products, repositoryOf(storage.resources, products));
const router = createRouter();
addReadinessRoutes(router, storage.readiness, latestVersion(defaultSqlDirFor(db)));
const writes = { storage, idempotency: new IdempotentWrites(), bodyLimitBytes: config.bodyLimitBytes };
for (const resource of RESOURCES) {
  const own = resource === products ? useCases : createResourceUseCases(resource, repositoryOf(storage.resources, resource));
  addResourceRoutes(router, resource, own, writes, { defaultCurrency: config.versions.defaultCurrency });
}
const listHandler = router.match('GET', '/api/products').handler;
const present = presenterIn(products)(version);
const statusChoices = products.fields.status.choices;
const clientAddressOf = createClientAddressResolver(config.trustProxy);
const pinOf = pinReader(null);
const redactUrl = secretRedactor([config.apiToken]);
// The whole of ours: the app itself, on its own storage of the same connection.
const app = createApp({ db, config, logger });

const req = {
  httpVersion: '1.1',
  method: 'GET',
  url: '/api/products?limit=50',
  rawHeaders: ['Host', '127.0.0.1:3000', 'Connection', 'keep-alive'],
  headers: { host: '127.0.0.1:3000', connection: 'keep-alive' },
  socket: { remoteAddress: '127.0.0.1' },
  complete: true,
};
// A response that keeps what it is given: the work below it (node:http's head, the socket) is the same for both.
const sink = () => ({ statusCode: 0, headersSent: false, setHeader() {}, destroy() {}, writeHead(status, phrase, headers) { Object.assign(this, { statusCode: status, headersSent: true, headers }); }, end(body) { this.body = body; } });

// Ours reads the statement src/sqlite/resources.ts prepares for a first page; the peer, its own.
const ourPage = db.prepare(`SELECT ${listedColumns(products).map((column) => column.name).join(', ')} FROM products ORDER BY id DESC LIMIT ?`);
const page = peerDb.prepare('SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products WHERE id < ? ORDER BY id DESC LIMIT ?');
for (const statement of [ourPage, page]) statement.setReturnArrays(true);
const rows = page.all(Number.MAX_SAFE_INTEGER, 51);
const listed = useCases.list({ limit: 50, beforeId: null, filters: [] });
const ctxOf = () => ({ req, method: 'GET', path: '/api/products', query: new URLSearchParams('limit=50'), params: {}, requestId: 'r', caller: null, version });

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

// Everything ours does for GET /api/products?limit=50 above the socket: its request listener.
function oursWhole(res = sink()) {
  app(req, res);
  return res;
}

// The same for the hand-written peer (peers/handwritten.js: handle, route, list, send).
function handwrittenWhole(res = sink()) {
  const requestId = requestIdOf(req.headers['x-request-id']);
  const queryAt = req.url.indexOf('?');
  const path = req.url.slice(0, queryAt);
  if (!hasOneHost(req) || path !== '/api/products') return null;
  const params = listParams(req.url.slice(queryAt + 1));
  const limit = params.limit === null ? 50 : Number(params.limit);
  const found = page.all(Number.MAX_SAFE_INTEGER, limit + 1);
  const json = pageJson(found, Math.min(found.length, limit));
  send(res, 200, json, requestId, ['link', `</api/products?limit=${limit}&cursor=${encodeCursor('products', found[limit - 1][0])}>; rel="next"`]);
  return res;
}

// Both answer at once (SQLite reads without waiting) with the same bytes, or the comparison is void.
const [mine, theirs] = [oursWhole(), handwrittenWhole()];
if (mine.statusCode !== 200 || mine.body !== theirs.body) throw new Error(`ours answered ${mine.statusCode}, not at once or not with the peer's bytes`);
const peerNames = new Set(theirs.headers.filter((_, i) => i % 2 === 0));
const extraHeaders = mine.headers.filter((name, i) => i % 2 === 0 && !peerNames.has(name));

const STAGES = [
  ['read 51 rows as arrays (ours: its first-page statement; peer: its own)', () => ourPage.all(51), () => page.all(Number.MAX_SAFE_INTEGER, 51)],
  ['repository + use case: rows to stored products, the page (at once on SQLite)', () => useCases.list({ limit: 50, beforeId: null, filters: [] }), null],
  ['present and serialize 50 products (ours: the version\'s presenter, its list shape, JSON.stringify; peer: one string), with its byte length',
    () => Buffer.byteLength(JSON.stringify(listReply(version, listed.items.map((item) => present(item)), 'link').body)), () => Buffer.byteLength(pageJson(rows, 50))],
  ['the next link and its checksummed cursor', () => nextLink('/api/products', 'products', { limit: 50, beforeId: null }, listed, ''),
    () => `</api/products?limit=50&cursor=${encodeCursor('products', rows[49][0])}>; rel="next"`],
  ['query: limit, cursor, status (ours: and If-Match/If-None-Match refused when malformed)', () => {
    const query = new URLSearchParams('limit=50');
    const status = parseEnumFilter(query, 'status', statusChoices);
    refuseMalformedPreconditions(req.headers);
    return [status, parsePageRequest('products', query)];
  }, () => listParams('limit=50')],
  ['request target, route, Host rule, client address', () => [parseRequestTarget(req.url), router.match('GET', '/api/products'), checkHostHeader(req), clientAddressOf('127.0.0.1', undefined)],
    () => [req.url.indexOf('?'), hasOneHost(req)]],
  ['API version: the fallback, none named, no pin, the default, its headers (ours only)', () => {
    const query = new URLSearchParams('limit=50');
    return [negotiate.fallback(), underApi('/api/products'), negotiate.named('/api/products', undefined, query), pinOf(undefined), joined(NO_CORS.headers, negotiate.unnamed('/api/products', undefined).headers)];
  }, null],
  ['request id (a new UUID)', () => requestIdFrom(undefined), () => requestIdOf(undefined)],
  ['the route handler (query, use case, present, link; ours only)', () => listHandler(ctxOf()), null],
  ['access log at level silent (ours only)', () => logRequest(logger, { requestId: 'r', method: 'GET', url: redactUrl(req.url), remoteAddress: '127.0.0.1', statusCode: 200, startedAt: 0, caller: null }), null],
  ['WHOLE request path above the socket', () => oursWhole(), () => handwrittenWhole()],
];

try {
  console.log(`µs per call, lowest mean of ${RUNS} runs of ${iterations} calls (node ${process.version}; ours in API version ${version.id})`);
  console.log('| stage | ours µs | hand-written µs | ours − hand-written µs |\n| --- | --- | --- | --- |');
  for (const [stage, ours, peer] of STAGES) {
    const a = await time(ours);
    const b = peer === null ? NaN : await time(peer);
    const cell = (value) => (Number.isFinite(value) ? value.toFixed(2) : '–');
    console.log(`| ${stage} | ${cell(a)} | ${cell(b)} | ${cell(a - b)} |`);
  }
  console.log(`\nThe same body (${Buffer.byteLength(mine.body)} bytes); headers ours sends that the peer does not: ${extraHeaders.join(', ') || 'none'}.`);
} finally {
  db.close();
  peerDb.close();
  rmSync(dir, { recursive: true, force: true });
}

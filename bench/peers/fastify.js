// The Fastify 5 peer: the same three endpoints, the same SQL and rules, on node:sqlite
// in WAL with synchronous=NORMAL (what most Node services run). LOGGER=pino turns on
// pino at info (Fastify's default request logging) on stdout.
import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import Fastify from 'fastify';
import pino from 'pino';
import { SECURITY_HEADERS } from './headers.js';
import { createBodySchema, listQuerySchema, pingResponse, productList, productSchema } from './fastify-schemas.js';

const db = new DatabaseSync(process.env.DB_PATH);
db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON');
const version = db.prepare('SELECT (SELECT user_version FROM pragma_user_version) AS v, (SELECT count(*) FROM sqlite_schema) AS n');
const page = db.prepare('SELECT id, name, price_in_cents, status, created_at FROM products WHERE id < ? ORDER BY id DESC LIMIT ?');
const insert = db.prepare('INSERT INTO products (name, price_in_cents, status, created_at) VALUES (?, ?, ?, ?)');
const EXPECTED_VERSION = Number(process.env.EXPECTED_VERSION ?? 1);

const app = Fastify({
  ...(process.env.LOGGER === 'pino' ? { loggerInstance: pino({ level: 'info' }) } : { logger: false }),
  genReqId: (req) => {
    const id = req.headers['x-request-id'];
    return typeof id === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : randomUUID();
  },
  keepAliveTimeout: 65_000,
  // Same rules as the service: no coercion, unknown members are errors, every error reported.
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
});

app.addHook('onRequest', (request, reply, done) => {
  reply.headers(SECURITY_HEADERS);
  reply.header('x-request-id', request.id);
  done();
});

app.get('/api/ping', { schema: { response: { 200: pingResponse, 503: pingResponse } } }, (request, reply) => {
  let v;
  try {
    v = Number(version.get().v);
  } catch {
    return reply.code(503).send({ status: 2, checks: { database: 2, schema: 2 } });
  }
  const schema = v === EXPECTED_VERSION ? 1 : 2;
  return reply.code(schema === 1 ? 200 : 503).send({ status: schema, checks: { database: 1, schema } });
});

const toProduct = (row) => ({ id: row.id, name: row.name, priceInCents: row.price_in_cents, status: row.status, createdAt: row.created_at });
const cursorOf = (id) => Buffer.from(`products:${id}`).toString('base64url');
function beforeIdOf(cursor) {
  if (cursor === undefined) return Number.MAX_SAFE_INTEGER;
  const match = /^products:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return match === null ? null : Number(match[1]);
}

app.get('/api/products', { schema: { querystring: listQuerySchema, response: { 200: productList } } }, (request, reply) => {
  const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
  const beforeId = beforeIdOf(request.query.cursor);
  if (beforeId === null || limit < 1 || limit > 200) return reply.code(400).send({ code: 'invalid_query' });
  const rows = page.all(beforeId, limit + 1);
  if (rows.length > limit) {
    rows.length = limit;
    reply.header('link', `</api/products?limit=${limit}&cursor=${cursorOf(rows[limit - 1].id)}>; rel="next"`);
  }
  return rows.map(toProduct);
});

app.post('/api/products', { schema: { body: createBodySchema, response: { 201: productSchema } } }, (request, reply) => {
  const name = request.body.name.trim();
  // JSON schema cannot trim; the length rule applies to the trimmed name, in code points.
  const length = [...name].length;
  if (length < 1 || length > 200) return reply.code(422).send({ code: 'validation_failed' });
  const product = { name, priceInCents: request.body.priceInCents, status: request.body.status ?? 1, createdAt: new Date().toISOString() };
  const result = insert.run(product.name, product.priceInCents, product.status, product.createdAt);
  reply.code(201).header('location', `/api/products/${result.lastInsertRowid}`);
  return { id: Number(result.lastInsertRowid), ...product };
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));

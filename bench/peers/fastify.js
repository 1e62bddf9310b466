// The Fastify 5 peer on node:sqlite: the service's three endpoints with the same SQL and rules,
// in WAL with synchronous=NORMAL (what most Node services run). Rows are read as objects,
// node:sqlite's default and what a Fastify app writes; ROWS=arrays reads arrays, as ours does.
// AUTH=keys|jwt guards the product routes (fastify-app.js, guardedRoutes); keys are read from `api_keys`.
import { DatabaseSync } from 'node:sqlite';
import { KEY_SQL, SCOPES } from './credentials.js';
import { createApp, created, guardedRoutes, linkNextPage, listen, newProductOf, pageRequestOf, pingOf } from './fastify-app.js';
import { createBodySchema, listQuerySchema, pingResponse, productList, productSchema } from './fastify-schemas.js';

const db = new DatabaseSync(process.env.DB_PATH);
db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON');
const version = db.prepare('SELECT (SELECT user_version FROM pragma_user_version) AS v, (SELECT count(*) FROM sqlite_schema) AS n');
const page = db.prepare('SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products WHERE id < ? ORDER BY id DESC LIMIT ?');
// A create in the default API version gets the default currency (SVC_DEFAULT_CURRENCY, EUR), as in the service.
const insert = db.prepare("INSERT INTO products (name, price_in_cents, price_currency, status, created_at, updated_at) VALUES (?, ?, 'EUR', ?, ?, ?)");

const app = createApp();

app.get('/api/ping', { schema: { response: { 200: pingResponse, 503: pingResponse } } }, (request, reply) => {
  let v = null;
  try {
    v = Number(version.get().v);
  } catch {
    // unreadable: answered as unavailable
  }
  const { code, body } = pingOf(v);
  return reply.code(code).send(body);
});

const arrays = process.env.ROWS === 'arrays';
page.setReturnArrays(arrays);
const toProduct = arrays
  ? (row) => ({ id: row[0], name: row[1], priceInCents: row[2], status: row[3], createdAt: row[4], updatedAt: row[5] })
  : (row) => ({ id: row.id, name: row.name, priceInCents: row.price_in_cents, status: row.status, createdAt: row.created_at, updatedAt: row.updated_at });
const idOf = arrays ? (row) => row[0] : (row) => row.id;

// Keys are read only with AUTH=keys: the statement is prepared then, so `api_keys` need not exist otherwise.
const keyStatement = process.env.AUTH === 'keys' ? db.prepare(KEY_SQL.sqlite) : null;
keyStatement?.setReturnArrays(true);

guardedRoutes(app, (id) => keyStatement.get(id), (routes) => {
  const listOptions = { config: { scope: SCOPES.read }, schema: { querystring: listQuerySchema, response: { 200: productList } } };
  routes.get('/api/products', listOptions, (request, reply) => {
    const asked = pageRequestOf(request.query);
    if (asked === null) return reply.code(400).send({ code: 'invalid_query' });
    const rows = linkNextPage(reply, page.all(asked.beforeId, asked.limit + 1), asked.limit, idOf);
    return rows.map(toProduct);
  });

  routes.post('/api/products', { config: { scope: SCOPES.write }, schema: { body: createBodySchema, response: { 201: productSchema } } }, (request, reply) => {
    const product = newProductOf(request.body);
    if (product === null) return reply.code(422).send({ code: 'validation_failed' });
    const result = insert.run(product.name, product.priceInCents, product.status, product.createdAt, product.updatedAt);
    return created(reply, Number(result.lastInsertRowid), product);
  });
});

await listen(app);

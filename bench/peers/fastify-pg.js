// The Fastify 5 peer on PostgreSQL: the service's statements (src/postgres/{products,workspaces,…}.ts) through
// the same client, set up as the service sets it up (src/postgres/open.ts, pg-client.ts): `pg`,
// a pool of 10, the same timeouts, named statements, rows as arrays. So the two differ in the HTTP
// framework and the layers above the SQL, not in the query mode. A create is what a Fastify user
// writes: one INSERT … RETURNING id in autocommit on the pool, exactly as atomic and durable as a
// transaction around it (issue 19); CREATE=transaction makes it BEGIN, INSERT, COMMIT on one
// connection, as the service's was when this peer was written.
// AUTH=keys|jwt guards the product routes (fastify-app.js, guardedRoutes); keys are read from
// `api_keys` by a named statement through the same pool.
import pg from 'pg';
import { KEY_SQL, SCOPES } from './credentials.js';
import { createApp, created, guardedRoutes, linkNextPage, listen, newProductOf, pageRequestOf, pingOf } from './fastify-app.js';
import { createBodySchema, listQuerySchema, pingResponse, productList, productSchema } from './fastify-schemas.js';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  connectionTimeoutMillis: 5_000,
  statement_timeout: 10_000,
  query_timeout: 11_000,
  idle_in_transaction_session_timeout: 20_000,
  idleTimeoutMillis: 30_000,
  keepAlive: true,
  application_name: 'fastify-peer',
});
pool.on('error', () => {}); // an idle connection's error would otherwise crash the process

// The text of an RFC 3339 instant with milliseconds, formatted by the server (src/postgres/sql.ts).
const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const SQL = {
  version: 'SELECT coalesce(max(version), 0) FROM schema_migrations',
  page: `SELECT id, name, price_in_cents, status, ${iso('created_at')}, ${iso('updated_at')}, version FROM products WHERE id < $1 ORDER BY id DESC LIMIT $2`,
  // A create in the default API version gets the default currency (SVC_DEFAULT_CURRENCY, EUR), as in the service.
  insert: "INSERT INTO products (name, price_in_cents, price_currency, status, created_at, updated_at) VALUES ($1, $2, 'EUR', $3, $4, $5) RETURNING id",
  key: KEY_SQL.postgres,
};
const query = async (runner, name, values = []) => (await runner.query({ name, text: SQL[name], values, rowMode: 'array' })).rows;

const IN_TRANSACTION = process.env.CREATE === 'transaction';

// pg's documented transaction pattern; a connection whose ROLLBACK failed is discarded.
async function transaction(work) {
  const client = await pool.connect();
  let broken;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(() => undefined, (rollbackError) => rollbackError);
    throw error;
  } finally {
    client.release(broken);
  }
}

const app = createApp();

app.get('/api/ping', { schema: { response: { 200: pingResponse, 503: pingResponse } } }, async (request, reply) => {
  const version = await query(pool, 'version').then(([row]) => Number(row[0]), () => null);
  const { code, body } = pingOf(version);
  return reply.code(code).send(body);
});

const toProduct = (row) => ({ id: Number(row[0]), name: row[1], priceInCents: row[2], status: row[3], createdAt: row[4], updatedAt: row[5] });

guardedRoutes(app, (id) => query(pool, 'key', [id]).then(([row]) => row), (routes) => {
  const listOptions = { config: { scope: SCOPES.read }, schema: { querystring: listQuerySchema, response: { 200: productList } } };
  routes.get('/api/products', listOptions, async (request, reply) => {
    const asked = pageRequestOf(request.query);
    if (asked === null) return reply.code(400).send({ code: 'invalid_query' });
    const rows = linkNextPage(reply, await query(pool, 'page', [asked.beforeId, asked.limit + 1]), asked.limit, (row) => row[0]);
    return rows.map(toProduct);
  });

  routes.post('/api/products', { config: { scope: SCOPES.write }, schema: { body: createBodySchema, response: { 201: productSchema } } }, async (request, reply) => {
    const product = newProductOf(request.body);
    if (product === null) return reply.code(422).send({ code: 'validation_failed' });
    const values = [product.name, product.priceInCents, product.status, product.createdAt, product.updatedAt];
    const [row] = IN_TRANSACTION ? await transaction((client) => query(client, 'insert', values)) : await query(pool, 'insert', values);
    return created(reply, Number(row[0]), product);
  });
});

await listen(app, () => pool.end());

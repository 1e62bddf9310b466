// The four operations of the PostgreSQL client comparison, written the way the service would write
// them with each client: `pg` (node-postgres) as it comes, `pg` with named (prepared) statements,
// `postgres` (porsager) as it comes (prepared statements and pipelining on), and `postgres` with
// pipelining off (max_pipeline 0: one query per connection at a time, as pg's pool does).
import pg from 'pg';
import postgres from 'postgres';

const COLUMNS = 'id, name, price_in_cents, status, created_at, updated_at, version';
export const SQL = {
  read: `SELECT ${COLUMNS} FROM products WHERE id = $1`,
  page: `SELECT ${COLUMNS} FROM products WHERE id < $1 ORDER BY id DESC LIMIT $2`,
  insert: 'INSERT INTO products (name, price_in_cents) VALUES ($1, $2) RETURNING id',
  lock: `SELECT ${COLUMNS} FROM products WHERE id = $1 FOR UPDATE`,
  update: 'UPDATE products SET price_in_cents = $2, version = version + 1, updated_at = now() WHERE id = $1',
};

/** The table every variant works on, and 1,000 rows in it. */
export const SCHEMA = [
  `CREATE TABLE products (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name           text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    price_in_cents integer NOT NULL CHECK (price_in_cents >= 0),
    status         smallint NOT NULL DEFAULT 1 CHECK (status IN (1, 2)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    version        integer NOT NULL DEFAULT 1)`,
  "INSERT INTO products (name, price_in_cents) SELECT 'Product ' || n, n * 100 FROM generate_series(1, 1000) AS n",
  'ALTER TABLE products OWNER TO svc',
];

/** pg's documented transaction pattern: one client from the pool, BEGIN, work, COMMIT or ROLLBACK, release. */
async function pgTransaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function pgVariant(url, named) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => undefined); // an idle client's error would otherwise crash the process
  const q = (runner, name, values) => runner.query(named ? { name, text: SQL[name], values } : { text: SQL[name], values });
  return {
    read: (id) => q(pool, 'read', [id]).then((r) => r.rows),
    page: (before) => q(pool, 'page', [before, 51]).then((r) => r.rows),
    insert: (price) => pgTransaction(pool, async (c) => (await q(c, 'insert', ['Bench product', price])).rows[0].id),
    update: (id, price) =>
      pgTransaction(pool, async (c) => {
        await q(c, 'lock', [id]);
        await q(c, 'update', [id, price]);
      }),
    end: () => pool.end(),
  };
}

function postgresVariant(url, options) {
  const sql = postgres(url, { max: 10, onnotice: () => undefined, ...options });
  return {
    read: (id) => sql`SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products WHERE id = ${id}`,
    page: (before) =>
      sql`SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products WHERE id < ${before} ORDER BY id DESC LIMIT ${51}`,
    insert: (price) => sql.begin(async (tx) => (await tx`INSERT INTO products (name, price_in_cents) VALUES (${'Bench product'}, ${price}) RETURNING id`)[0].id),
    update: (id, price) =>
      sql.begin(async (tx) => {
        await tx`SELECT id, name, price_in_cents, status, created_at, updated_at, version FROM products WHERE id = ${id} FOR UPDATE`;
        await tx`UPDATE products SET price_in_cents = ${price}, version = version + 1, updated_at = now() WHERE id = ${id}`;
      }),
    end: () => sql.end({ timeout: 5 }),
  };
}

/** The variants by name, each a factory of the four operations on a pool of 10 connections to `url`. */
export const VARIANTS = {
  pg: (url) => pgVariant(url, false),
  'pg-named': (url) => pgVariant(url, true),
  postgres: (url) => postgresVariant(url, {}),
  'postgres-nopipe': (url) => postgresVariant(url, { max_pipeline: 0 }),
};

/** Variants measured on some operations only: sql.begin reserves a connection, so pipelining is moot in transactions (and max_pipeline 0 breaks them). */
export const ONLY = { 'postgres-nopipe': ['read', 'page'] };

/** The operations, each calling its variant with fresh random arguments. */
export const OPERATIONS = {
  read: (v) => v.read(1 + Math.floor(Math.random() * 1000)),
  page: (v) => v.page(52 + Math.floor(Math.random() * 950)),
  insert: (v) => v.insert(Math.floor(Math.random() * 100_000)),
  update: (v) => v.update(1 + Math.floor(Math.random() * 1000), Math.floor(Math.random() * 100_000)),
};

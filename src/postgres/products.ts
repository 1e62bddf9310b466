import type { SqlRunner } from './client.ts';
import { asNumber, isoText } from './sql.ts';
import type { Product } from '../products/model.ts';
import type { ProductRepository } from '../products/repository.ts';
import { LISTED_PRODUCT_COLUMNS, listedProductFromRow, PRODUCT_COLUMNS, productFromRow } from '../products/rows.ts';
import { EventType } from '../events/model.ts';
import { insertEventFrom } from './event-sql.ts';

// The times are formatted by the server into the text SQLite stores (see isoText).
const selected = (columns: readonly string[]): string => columns.map((column) => (column.endsWith('_at') ? isoText(column) : column)).join(', ');
const COLUMNS = selected(PRODUCT_COLUMNS);
// A page reads no version: a list shows none.
const LISTED = selected(LISTED_PRODUCT_COLUMNS);
const RETURNED = `RETURNING ${PRODUCT_COLUMNS.join(', ')})`;

// Each write is one statement that also records its event (src/postgres/event-sql.ts).
const INSERT =
  `WITH p AS (INSERT INTO products (name, price_in_cents, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ${RETURNED}, ` +
  `e AS (${insertEventFrom(EventType.productCreated, 'p.updated_at', PRODUCT_COLUMNS)}) SELECT id FROM p`;
const UPDATE =
  `WITH p AS (UPDATE products SET name = $1, price_in_cents = $2, status = $3, updated_at = $4, version = $5 WHERE id = $6 ${RETURNED} ` +
  insertEventFrom(EventType.productUpdated, 'p.updated_at', PRODUCT_COLUMNS);
const DELETE = `WITH p AS (DELETE FROM products WHERE id = $1 ${RETURNED} ${insertEventFrom(EventType.productDeleted, 'now()', PRODUCT_COLUMNS)}`;

/** A ProductRepository on PostgreSQL, running its statements on `db` (the pool, or one transaction). */
export function createPostgresProductRepository(db: SqlRunner): ProductRepository {
  const one = async (sql: string, id: number): Promise<Product | undefined> => {
    const [row] = await db.rows(sql, [id]);
    return row === undefined ? undefined : productFromRow(row);
  };
  return {
    async insert(product) {
      const [row] = await db.rows(INSERT, [product.name, product.priceInCents, product.status, product.createdAt, product.updatedAt]);
      return { id: asNumber(row?.[0]), ...product, version: 1 };
    },
    findById: (id) => one(`SELECT ${COLUMNS} FROM products WHERE id = $1`, id),
    // The row lock holds until the transaction ends: a concurrent change of this product waits, then
    // reads what this one committed, so an If-Match check and its write are one step.
    findForUpdate: (id) => one(`SELECT ${COLUMNS} FROM products WHERE id = $1 FOR UPDATE`, id),
    async update(product) {
      await db.run(UPDATE, [
        product.name, product.priceInCents, product.status, product.updatedAt, product.version, product.id,
      ]);
    },
    async remove(id) {
      // One event per deleted row: the count of events inserted is the count of rows deleted.
      return (await db.run(DELETE, [id])) > 0;
    },
    async listBefore(beforeId, limit, status) {
      const below = beforeId ?? Number.MAX_SAFE_INTEGER;
      const rows =
        status === null
          ? await db.rows(`SELECT ${LISTED} FROM products WHERE id < $1 ORDER BY id DESC LIMIT $2`, [below, limit])
          : await db.rows(`SELECT ${LISTED} FROM products WHERE status = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, [status, below, limit]);
      return rows.map(listedProductFromRow);
    },
  };
}

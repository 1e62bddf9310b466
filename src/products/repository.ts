import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Product, ProductStatus } from './model.ts';

/** Storage of products; the only code that knows their SQL. */
export interface ProductRepository {
  insert(product: Omit<Product, 'id'>): Product;
  findById(id: number): Product | undefined;
  /** Up to `limit` products with id below `beforeId` (all when null), newest first. */
  listBefore(beforeId: number | null, limit: number): Product[];
}

const COLUMNS = 'id, name, price_in_cents, status, created_at';

function toProduct(row: Record<string, unknown>): Product {
  return {
    id: Number(row['id']),
    name: String(row['name']),
    priceInCents: Number(row['price_in_cents']),
    status: Number(row['status']) as ProductStatus,
    createdAt: String(row['created_at']),
  };
}

/** A ProductRepository on node:sqlite; statements are prepared once. */
export function createProductRepository(db: DatabaseSync): ProductRepository {
  const insert: StatementSync = db.prepare(
    'INSERT INTO products (name, price_in_cents, status, created_at) VALUES (?, ?, ?, ?)',
  );
  const byId = db.prepare(`SELECT ${COLUMNS} FROM products WHERE id = ?`);
  const page = db.prepare(`SELECT ${COLUMNS} FROM products WHERE id < ? ORDER BY id DESC LIMIT ?`);
  return {
    insert(product) {
      const result = insert.run(product.name, product.priceInCents, product.status, product.createdAt);
      return { id: Number(result.lastInsertRowid), ...product };
    },
    findById(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toProduct(row);
    },
    listBefore(beforeId, limit) {
      return page.all(beforeId ?? Number.MAX_SAFE_INTEGER, limit).map(toProduct);
    },
  };
}

import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import type { Product } from '../products/model.ts';
import type { ProductRepository } from '../products/repository.ts';
import { LISTED_PRODUCT_COLUMNS, listedProductFromRow, PRODUCT_COLUMNS, productFromRow } from '../products/rows.ts';
import { EventType } from '../events/model.ts';
import { eventRecorder } from './event-recorder.ts';

const COLUMNS = PRODUCT_COLUMNS.join(', ');
// A page reads no version: a list shows none (one value less per row).
const LISTED = LISTED_PRODUCT_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

/** A ProductRepository on node:sqlite; statements are prepared once. */
export function createSqliteProductRepository(db: DatabaseSync): ProductRepository {
  const insert = db.prepare('INSERT INTO products (name, price_in_cents, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  const update = db.prepare('UPDATE products SET name = ?, price_in_cents = ?, status = ?, updated_at = ?, version = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM products WHERE id = ?');
  const byId = db.prepare(`SELECT ${COLUMNS} FROM products WHERE id = ?`);
  const page = db.prepare(`SELECT ${LISTED} FROM products WHERE id < ? ORDER BY id DESC LIMIT ?`);
  const pageOfStatus = db.prepare(`SELECT ${LISTED} FROM products WHERE status = ? AND id < ? ORDER BY id DESC LIMIT ?`);
  // The first page (no cursor), the one asked most: no bound to bind or compare on each row.
  const firstPage = db.prepare(`SELECT ${LISTED} FROM products ORDER BY id DESC LIMIT ?`);
  for (const read of [byId, page, pageOfStatus, firstPage]) read.setReturnArrays(true);
  // Each write records its event in the same savepoint, from the row as stored (docs/events.md).
  const record = eventRecorder(db, 'products', PRODUCT_COLUMNS, [EventType.productCreated, EventType.productUpdated, EventType.productDeleted]);
  const findById = async (id: number): Promise<Product | undefined> => {
    const row = byId.get(id) as Row | undefined;
    return row === undefined ? undefined : productFromRow(row);
  };
  return {
    async insert(product) {
      const result = insert.run(product.name, product.priceInCents, product.status, product.createdAt, product.updatedAt);
      record.created.run(result.lastInsertRowid);
      return { id: Number(result.lastInsertRowid), ...product, version: 1 };
    },
    findById,
    // A write transaction here is BEGIN IMMEDIATE: it already holds the database's write lock.
    findForUpdate: findById,
    async update(product) {
      if (update.run(product.name, product.priceInCents, product.status, product.updatedAt, product.version, product.id).changes > 0) record.updated.run(product.id);
    },
    async remove(id) {
      // The event is taken from the row before it goes; no row, no event.
      record.deleted.run(id);
      return remove.run(id).changes > 0;
    },
    // No await in a read: the page comes back at once (its busy handling is src/sqlite/busy.ts's).
    listBefore(beforeId, limit, status) {
      const below = beforeId ?? Number.MAX_SAFE_INTEGER;
      const rows = (status !== null ? pageOfStatus.all(status, below, limit) : beforeId === null ? firstPage.all(limit) : page.all(below, limit)) as unknown as Row[];
      return rows.map(listedProductFromRow);
    },
  };
}

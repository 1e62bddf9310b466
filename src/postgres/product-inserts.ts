import { EventType } from '../events/model.ts';
import type { Product } from '../products/model.ts';
import { PRODUCT_COLUMNS } from '../products/rows.ts';
import type { SqlRunner } from './client.ts';
import { isServerUnavailable, sqlState } from './errors.ts';
import { asNumber, isoText } from './sql.ts';

/** A product to insert: what ProductRepository.insert takes. */
export type NewProductRow = Omit<Product, 'id' | 'version'>;

/** Inserts products in autocommit, several concurrent ones in one statement. */
export interface ProductInserts {
  insert(product: NewProductRow): Promise<Product>;
}

export interface ProductInsertsOptions {
  /** Statements under way at once; creates that come meanwhile wait and go together in the next one (2). */
  maxInFlight?: number;
  /** Creates in one statement at most (100). */
  maxBatch?: number;
}

// The events' data in PRODUCT_COLUMNS order, times as the text SQLite stores (as event-sql.ts makes it).
const EVENT_DATA = `json_build_array(${PRODUCT_COLUMNS.map((c) => (c.endsWith('_at') ? isoText(`p.${c}`) : `p.${c}`)).join(', ')})::text`;

// One statement for any number of products, so it is prepared once per connection: the rows come as
// arrays, one per column. They are inserted in the order given (ORDER BY ord), so the identity column
// numbers them in that order, and their events are inserted in id order: the feed lists the creates of
// one statement in the order of their ids, as it lists creates committed one by one.
export const INSERT_MANY =
  'WITH v AS (SELECT * FROM unnest($1::text[], $2::integer[], $3::smallint[], $4::timestamptz[], $5::timestamptz[]) ' +
  'WITH ORDINALITY AS v(name, price_in_cents, status, created_at, updated_at, ord)), ' +
  'p AS (INSERT INTO products (name, price_in_cents, status, created_at, updated_at) ' +
  `SELECT name, price_in_cents, status, created_at, updated_at FROM v ORDER BY ord RETURNING ${PRODUCT_COLUMNS.join(', ')}), ` +
  `e AS (INSERT INTO events (type, created_at, data) SELECT ${EventType.productCreated}, p.updated_at, ${EVENT_DATA} FROM p ORDER BY p.id) ` +
  'SELECT id FROM p ORDER BY id';

interface Waiting {
  product: NewProductRow;
  resolve(product: Product): void;
  reject(error: unknown): void;
}

// A statement PostgreSQL refused was rolled back whole, so each of its creates can run again alone;
// after any other failure (the connection lost, the server going away) it may have committed, and
// running them again could store them twice.
const refusedWhole = (error: unknown): boolean => sqlState(error) !== undefined && !isServerUnavailable(error);

/**
 * Group insert on PostgreSQL, as SQLite's group commit shares one fsync: creates that arrive while
 * `maxInFlight` statements are under way wait, then go in one multi-row INSERT … RETURNING whose
 * events ride in the same statement, one commit for all. When such a statement is refused, every
 * create in it runs again alone, so one failing create never fails another.
 */
export function createProductInserts(pool: SqlRunner, options: ProductInsertsOptions = {}): ProductInserts {
  const maxInFlight = options.maxInFlight ?? 2;
  const maxBatch = options.maxBatch ?? 100;
  const queue: Waiting[] = [];
  let inFlight = 0;

  async function insertAll(products: readonly NewProductRow[]): Promise<Product[]> {
    const column = <K extends keyof NewProductRow>(key: K): NewProductRow[K][] => products.map((product) => product[key]);
    const rows = await pool.rows(INSERT_MANY, [column('name'), column('priceInCents'), column('status'), column('createdAt'), column('updatedAt')]);
    if (rows.length !== products.length) throw new Error(`a group insert of ${products.length} products returned ${rows.length} ids`);
    return products.map((product, i) => ({ id: asNumber(rows[i]?.[0]), ...product, version: 1 }));
  }

  async function run(batch: Waiting[]): Promise<void> {
    try {
      const stored = await insertAll(batch.map((waiting) => waiting.product));
      batch.forEach((waiting, i) => waiting.resolve(stored[i] as Product));
    } catch (error) {
      if (batch.length === 1 || !refusedWhole(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      await Promise.all(batch.map((waiting) => insertAll([waiting.product]).then(([product]) => waiting.resolve(product as Product), waiting.reject)));
    }
  }

  function next(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      inFlight++;
      void run(queue.splice(0, maxBatch)).finally(() => {
        inFlight--;
        next();
      });
    }
  }

  return {
    insert(product) {
      return new Promise<Product>((resolve, reject) => {
        queue.push({ product, resolve, reject });
        next();
      });
    },
  };
}

import type { NewRow } from '../resources/repository.ts';
import type { Resource } from '../resources/resource.ts';
import { type AnyStored, columnValue } from '../resources/rows.ts';
import type { SqlRunner } from './client.ts';
import { isServerUnavailable, sqlState } from './errors.ts';
import { insertEventFrom, sqlTypeOf } from './resource-sql.ts';
import { asNumber } from './sql.ts';

/** Inserts resources of one kind in autocommit, several concurrent ones in one statement. */
export interface GroupedInserts {
  insert(resource: NewRow): Promise<AnyStored>;
}

export interface GroupedInsertsOptions {
  /** Statements under way at once; creates that come meanwhile wait and go together in the next one (2). */
  maxInFlight?: number;
  /** Creates in one statement at most (100). */
  maxBatch?: number;
}

/**
 * One statement for any number of `resource`s, so it is prepared once per connection: the rows come
 * as arrays, one per column. They are inserted in the order given (ORDER BY ord), so the identity
 * column numbers them in that order, and their events are inserted in id order: the feed lists the
 * creates of one statement in the order of their ids, as it lists creates committed one by one.
 */
export function insertManySql(resource: Resource): string {
  const written = resource.columns.filter((column) => column.type !== 'id' && column.type !== 'version');
  const names = written.map((column) => column.name).join(', ');
  const arrays = written.map((column, i) => `$${i + 1}::${sqlTypeOf(column)}[]`).join(', ');
  const event = insertEventFrom(resource, resource.events.created, 'p.updated_at');
  return `WITH v AS (SELECT * FROM unnest(${arrays}) WITH ORDINALITY AS v(${names}, ord)), ` +
    `p AS (INSERT INTO ${resource.plural} (${names}) SELECT ${names} FROM v ORDER BY ord RETURNING ${resource.columns.map((c) => c.name).join(', ')}), ` +
    `e AS (${event} ORDER BY p.id) SELECT id FROM p ORDER BY id`;
}

interface Waiting {
  row: NewRow;
  resolve(stored: AnyStored): void;
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
export function createGroupedInserts(pool: SqlRunner, resource: Resource, options: GroupedInsertsOptions = {}): GroupedInserts {
  const maxInFlight = options.maxInFlight ?? 2;
  const maxBatch = options.maxBatch ?? 100;
  const sql = insertManySql(resource);
  const written = resource.columns.filter((column) => column.type !== 'id' && column.type !== 'version');
  const queue: Waiting[] = [];
  let inFlight = 0;

  async function insertAll(rows: readonly NewRow[]): Promise<AnyStored[]> {
    const ids = await pool.rows(sql, written.map((column) => rows.map((row) => columnValue(column, row))));
    if (ids.length !== rows.length) throw new Error(`a group insert of ${rows.length} ${resource.plural} returned ${ids.length} ids`);
    return rows.map((row, i) => ({ ...row, id: asNumber(ids[i]?.[0]), version: 1 }) as AnyStored);
  }

  async function run(batch: Waiting[]): Promise<void> {
    try {
      const stored = await insertAll(batch.map((waiting) => waiting.row));
      batch.forEach((waiting, i) => waiting.resolve(stored[i] as AnyStored));
    } catch (error) {
      if (batch.length === 1 || !refusedWhole(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      await Promise.all(batch.map((waiting) => insertAll([waiting.row]).then(([stored]) => waiting.resolve(stored as AnyStored), waiting.reject)));
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
    insert(row) {
      return new Promise<AnyStored>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        next();
      });
    },
  };
}

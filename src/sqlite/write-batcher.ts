import type { DatabaseSync } from 'node:sqlite';
import { busyAsStorageError } from './busy.ts';

/** A unit of work run inside a shared write transaction, given the repositories bound to it. */
export type WriteWork<R, T> = (tx: R) => Promise<T>;

interface Pending<R> {
  work: WriteWork<R, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for SQLite: writes queued in the same event-loop turn run in one transaction and
 * share one fsync. Each runs inside its own savepoint, so one that fails is rolled back alone;
 * none is resolved before the COMMIT that makes it durable.
 *
 * node:sqlite is synchronous, so a work that awaits only the repositories it is given settles in
 * microtasks: a batch runs from BEGIN to COMMIT within one turn of the event loop, and no other
 * request ever runs a statement while the transaction is open. Works must not await anything else.
 */
export class WriteBatcher<R> {
  readonly #db: DatabaseSync;
  readonly #tx: R;
  readonly #maxBatch: number;
  readonly #onCommit: (size: number) => void;
  #queue: Pending<R>[] = [];
  #scheduled = false;

  constructor(db: DatabaseSync, tx: R, options: { maxBatch?: number; onCommit?: (size: number) => void } = {}) {
    this.#db = db;
    this.#tx = tx;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#onCommit = options.onCommit ?? (() => {});
  }

  /** Runs `work` in the next shared transaction; resolves with its result once committed. */
  run<T>(work: WriteWork<R, T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Commits everything queued so far (normally called by the scheduler). */
  async flush(): Promise<void> {
    this.#scheduled = false;
    while (this.#queue.length > 0) {
      await this.#commit(this.#queue.splice(0, this.#maxBatch));
    }
  }

  async #commit(batch: Pending<R>[]): Promise<void> {
    const db = this.#db;
    const outcomes: Outcome[] = [];
    try {
      // IMMEDIATE takes the write lock up front, so another process makes us wait
      // (busy_timeout) instead of failing half-way through the batch.
      db.exec('BEGIN IMMEDIATE');
      for (const item of batch) outcomes.push(await this.#inSavepoint(item.work));
      db.exec('COMMIT');
    } catch (thrown) {
      // A closed or broken database throws here too; the waiting requests must still be
      // answered (with the first error), or they hang and the throw escapes as uncaught.
      try {
        if (db.isOpen && db.isTransaction) db.exec('ROLLBACK');
      } catch {}
      const error = busyAsStorageError(thrown);
      for (const item of batch) item.reject(error);
      return;
    }
    this.#onCommit(batch.length);
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(busyAsStorageError(outcome.error));
    });
  }

  async #inSavepoint(work: WriteWork<R, unknown>): Promise<Outcome> {
    const db = this.#db;
    db.exec('SAVEPOINT write');
    try {
      const value = await work(this.#tx);
      db.exec('RELEASE write');
      return { ok: true, value };
    } catch (error) {
      db.exec('ROLLBACK TO write');
      db.exec('RELEASE write');
      return { ok: false, error };
    }
  }
}

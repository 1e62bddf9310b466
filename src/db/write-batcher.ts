import type { DatabaseSync } from 'node:sqlite';

/** A synchronous unit of work run inside a shared write transaction. */
export type WriteWork<T> = () => T;

/** Told how many writes each committed transaction carried (the db_commit_batch_size metric). */
export type CommitObserver = (writes: number) => void;

interface Pending {
  work: WriteWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit: writes queued in the same event-loop turn run in one transaction and
 * share one fsync. Each runs inside its own savepoint, so one that throws is rolled back
 * alone; none is resolved before the COMMIT that makes it durable.
 */
export class WriteBatcher {
  readonly #db: DatabaseSync;
  readonly #maxBatch: number;
  readonly #onCommit: CommitObserver | undefined;
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(db: DatabaseSync, maxBatch = 256, onCommit?: CommitObserver) {
    this.#db = db;
    this.#maxBatch = maxBatch;
    this.#onCommit = onCommit;
  }

  /** Runs `work` in the next shared transaction; resolves with its result once committed. */
  run<T>(work: WriteWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued so far (normally called by the scheduler). */
  flush(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0) {
      this.#commit(this.#queue.splice(0, this.#maxBatch));
    }
  }

  #commit(batch: Pending[]): void {
    const db = this.#db;
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      // IMMEDIATE takes the write lock up front, so another process makes us wait
      // (busy_timeout) instead of failing half-way through the batch.
      db.exec('BEGIN IMMEDIATE');
      for (const item of batch) outcomes.push(runInSavepoint(db, item.work));
      db.exec('COMMIT');
      this.#onCommit?.(batch.length);
    } catch (error) {
      // A closed or broken database throws here too; the waiting requests must still be
      // answered (with the first error), or they hang and the throw escapes as uncaught.
      try {
        if (db.isOpen && db.isTransaction) db.exec('ROLLBACK');
      } catch {}
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok === true) item.resolve(outcome.value);
      else item.reject(outcome?.value);
    });
  }
}

function runInSavepoint(db: DatabaseSync, work: WriteWork<unknown>): { ok: boolean; value: unknown } {
  db.exec('SAVEPOINT write');
  try {
    const value = work();
    db.exec('RELEASE write');
    return { ok: true, value };
  } catch (error) {
    db.exec('ROLLBACK TO write');
    db.exec('RELEASE write');
    return { ok: false, value: error };
  }
}

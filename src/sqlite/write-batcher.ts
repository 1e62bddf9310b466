import type { DatabaseSync } from 'node:sqlite';
import { busyAsStorageError, isDatabaseBusy, LOCK_WAIT_MS, lockedByAnother, retryDelayMs } from './busy.ts';
import { type OneCall, revocableView } from './revocable.ts';
import { type Outcome, TransactionTurnError, TurnWatch } from './turn.ts';

/** A unit of work run inside a shared write transaction, given the repositories bound to it. */
export type WriteWork<R, T> = (tx: R) => Promise<T>;

/** How a WriteBatcher batches and waits. */
export interface WriteBatcherOptions {
  /** The most works one transaction holds (256). */
  maxBatch?: number;
  /** Called after each group commit with the number of works it held. */
  onCommit?: (size: number) => void;
  /** How long a work waits for another connection's write lock before StorageBusyError (LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Told when each transaction has begun (it holds the write lock), before its first work, and when it has ended. */
  transaction?: TransactionHooks;
}

/** What learns of each write transaction's span: its `began` may read, under the write lock. */
export interface TransactionHooks {
  began(): void;
  ended(): void;
}

const NO_HOOKS: TransactionHooks = { began() {}, ended() {} };

interface Pending<R> {
  work: WriteWork<R, unknown>;
  /** A single write: its second repository call throws (Storage.singleWrite). */
  oneCall: OneCall | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** performance.now() past which it stops waiting for the lock. */
  deadline: number;
}

const USED_AFTER_TURN =
  "a write transaction's repositories were used after its work had ended (a work may await only the repositories it is given)";

/**
 * Group commit for SQLite: works queued in the same event-loop turn (or while the previous batch ran,
 * or while another connection held the write lock) run in one transaction and share one fsync. Each runs inside its own
 * savepoint, so one that fails is rolled back alone; none is resolved before the COMMIT that makes
 * it durable.
 *
 * The one-turn rule, enforced: at most one turn is ever scheduled or running, so batches never
 * overlap. A turn starts in a macrotask of its own (setImmediate, or a timer while the lock is
 * taken), and runs from BEGIN to COMMIT within it: each work gets its turn's microtasks to settle,
 * and one that waits for more (TurnWatch) is cut off, its savepoint rolled back and its
 * repositories revoked, while the others carry on. So no other code runs while a transaction is
 * open, and no statement of a work ever lands in another's transaction.
 *
 * The connection needs no busy timeout: when another connection holds the lock, BEGIN IMMEDIATE
 * fails at once and the turn is tried again on a timer, with back-off, never blocking the event loop;
 * a work still waiting `lockWaitMs` after it was queued is rejected with StorageBusyError.
 */
export class WriteBatcher<R extends object> {
  readonly #db: DatabaseSync;
  readonly #tx: R;
  readonly #maxBatch: number;
  readonly #onCommit: (size: number) => void;
  readonly #lockWaitMs: number;
  readonly #hooks: TransactionHooks;
  #queue: Pending<R>[] = [];
  // True from the moment a turn is scheduled until the queue is empty.
  #active = false;
  // BEGINs in a row that found the lock taken, for the back-off.
  #busyTries = 0;

  constructor(db: DatabaseSync, tx: R, options: WriteBatcherOptions = {}) {
    this.#db = db;
    this.#tx = tx;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#onCommit = options.onCommit ?? (() => {});
    this.#lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
    this.#hooks = options.transaction ?? NO_HOOKS;
  }

  /** Runs `work` in a coming shared transaction; resolves with its result once committed. With `oneCall`, a second repository call of the work throws. */
  run<T>(work: WriteWork<R, T>, oneCall?: OneCall): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const deadline = performance.now() + this.#lockWaitMs;
      this.#queue.push({ work, oneCall, resolve: resolve as (value: unknown) => void, reject, deadline });
      if (this.#active) return;
      this.#active = true;
      setImmediate(this.#turn);
    });
  }

  // One turn, always in a macrotask of its own: take the lock, run a batch, commit; or, with the
  // lock taken by another connection, schedule the next try.
  readonly #turn = (): void => {
    let began: boolean;
    try {
      began = this.#begin();
    } catch (error) {
      // Nothing to roll back: this BEGIN opened nothing, and a transaction already open on the
      // connection (an embedding program's own) is not ours to end.
      for (const item of this.#queue.splice(0, this.#maxBatch)) item.reject(error);
      this.#next(0);
      return;
    }
    if (!began) {
      this.#rejectOverdue();
      this.#next(this.#retryDelay());
      return;
    }
    this.#busyTries = 0;
    void this.#runBatch(this.#queue.splice(0, this.#maxBatch)).finally(() => this.#next(0));
  };

  // BEGIN IMMEDIATE takes the write lock up front, so a batch never fails half-way for want of it.
  // False when another connection holds it.
  #begin(): boolean {
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if (isDatabaseBusy(error)) return false;
      throw error;
    }
  }

  #rejectOverdue(): void {
    const now = performance.now();
    while (this.#queue.length > 0 && (this.#queue[0] as Pending<R>).deadline <= now) {
      (this.#queue.shift() as Pending<R>).reject(lockedByAnother());
    }
  }

  // Backing off, but never past the moment the oldest work stops waiting.
  #retryDelay(): number {
    const oldest = this.#queue[0];
    const delay = retryDelayMs(this.#busyTries++);
    return oldest === undefined ? 0 : Math.max(1, Math.min(delay, Math.ceil(oldest.deadline - performance.now())));
  }

  // Schedules the next turn (0: at once, after pending I/O), or goes idle once nothing is queued.
  #next(delayMs: number): void {
    if (this.#queue.length === 0) {
      this.#active = false;
      this.#busyTries = 0;
    } else if (delayMs === 0) setImmediate(this.#turn);
    else setTimeout(this.#turn, delayMs);
  }

  async #runBatch(batch: Pending<R>[]): Promise<void> {
    const db = this.#db;
    const outcomes: Outcome[] = [];
    const watch = new TurnWatch();
    try {
      this.#hooks.began();
      for (const item of batch) outcomes.push(await this.#inSavepoint(item, watch));
      db.exec('COMMIT');
    } catch (thrown) {
      // This turn's BEGIN succeeded, so the transaction is its own to roll back. A closed or broken
      // database throws here too; the waiting requests must still be answered, or they hang.
      try {
        if (db.isOpen && db.isTransaction) db.exec('ROLLBACK');
      } catch {}
      this.#hooks.ended();
      const error = busyAsStorageError(thrown);
      // A work cut off from its turn keeps its own error: it is a bug to fix, whatever else failed.
      batch.forEach((item, i) => item.reject(turnError(outcomes[i]) ?? error));
      return;
    }
    this.#hooks.ended();
    this.#onCommit(batch.length);
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(busyAsStorageError(outcome.error));
    });
  }

  async #inSavepoint({ work, oneCall }: Pending<R>, watch: TurnWatch): Promise<Outcome> {
    const db = this.#db;
    db.exec('SAVEPOINT write');
    // Each work gets a view of the repositories of its own, revoked once its turn ends: a work that
    // keeps one and uses it later (after a timer, in a callback) gets an error instead of writing
    // into another's transaction or outside any.
    const tx = revocableView(this.#tx, () => new TransactionTurnError(USED_AFTER_TURN), oneCall);
    const outcome = await watch.settle(() => work(tx.view));
    tx.revoke();
    if (outcome.ok) db.exec('RELEASE write');
    else {
      db.exec('ROLLBACK TO write');
      db.exec('RELEASE write');
    }
    return outcome;
  }
}

function turnError(outcome: Outcome | undefined): TransactionTurnError | undefined {
  return outcome !== undefined && !outcome.ok && outcome.error instanceof TransactionTurnError ? outcome.error : undefined;
}

/**
 * A transaction's work broke the one-turn rule (Storage.transaction): it awaited something other
 * than the repositories it was given, or used them after it had ended. A bug in the calling code,
 * never the request's fault: answered 500 and logged as unexpected.
 */
export class TransactionTurnError extends Error {
  override name = 'TransactionTurnError';
}

/** What a work came to within its turn. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const OUTLIVED_TURN =
  'a write transaction\'s work did not settle within its turn: it awaited something other than the repositories it was given ' +
  '(a timer, I/O, another promise); its writes were rolled back';

/**
 * Watches the works of one turn, run one after another: each settles with its outcome, or with a
 * TransactionTurnError once the microtask queue has drained while it is still pending, that is once
 * it waits for a macrotask (a timer, I/O). Make one per turn.
 *
 * node:sqlite is synchronous and the repositories' methods are async functions, so a work that
 * awaits only them settles in microtasks. How the end of those is seen: a process.nextTick scheduled
 * from inside a microtask runs only once V8 has run the whole microtask queue (Node runs the tick
 * queue after each full microtask checkpoint), so if a work is still pending then, nothing left in
 * this turn can settle it. Nothing else runs in between: the caller starts each turn in a macrotask
 * of its own, so the queue it drains holds only this turn's continuations. One watch serves every
 * work of the turn, re-armed only after a cut-off, which spares a tick per work.
 */
export class TurnWatch {
  // Ends the work now running as outlived; null when none is running.
  #cutOff: (() => void) | null = null;
  #armed = false;

  /** Starts `work` and settles with what it came to within the turn. */
  settle(work: () => Promise<unknown>): Promise<Outcome> {
    this.#arm();
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome): void => {
        if (settled) return;
        settled = true;
        this.#cutOff = null;
        resolve(outcome);
      };
      this.#cutOff = () => settle({ ok: false, error: new TransactionTurnError(OUTLIVED_TURN) });
      try {
        Promise.resolve(work()).then(
          (value) => settle({ ok: true, value }),
          (error: unknown) => settle({ ok: false, error }),
        );
      } catch (error) {
        settle({ ok: false, error });
      }
    });
  }

  #arm(): void {
    if (this.#armed) return;
    this.#armed = true;
    queueMicrotask(() => {
      process.nextTick(() => {
        this.#armed = false;
        this.#cutOff?.();
      });
    });
  }
}

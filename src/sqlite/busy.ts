import { setTimeout as sleep } from 'node:timers/promises';
import { StorageBusyError } from '../db/errors.ts';

const SQLITE_BUSY = 5;

/** How long a statement of the service waits for another connection's lock before StorageBusyError (docs/operations.md, Workers). */
export const LOCK_WAIT_MS = 5_000;

// Between tries: short at first (another process's batch holds the lock for a moment), then
// steadier, as SQLite's own busy handler does; a try costs microseconds.
const RETRY_DELAYS_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50] as const;

/** How long to wait before try number `attempt + 1` of a statement that met SQLITE_BUSY. */
export function retryDelayMs(attempt: number): number {
  return RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)] as number;
}

/** True for SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isDatabaseBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_BUSY;
}

/**
 * Another connection held a lock for longer than the service waits: a moment of overload, not a
 * fault, so it becomes StorageBusyError (answered 503 with Retry-After). Other errors pass as they are.
 */
export function busyAsStorageError(error: unknown): unknown {
  return isDatabaseBusy(error) ? lockedByAnother() : error;
}

/** The StorageBusyError of a statement that could not get a lock another connection held. */
export function lockedByAnother(): StorageBusyError {
  return new StorageBusyError('the database is locked by another writer');
}

/**
 * Calls `call` again while it meets SQLITE_BUSY, waiting on timers between tries (the event loop
 * goes on), until `waitMs` have passed; then StorageBusyError. Only for calls that changed nothing
 * when they failed, as a statement that met SQLITE_BUSY did not.
 */
export async function retryWhileBusy<T>(call: () => Promise<T>, waitMs: number): Promise<T> {
  let deadline = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      // Read the clock only once something is locked: the usual call never needs it.
      if (attempt === 0) deadline = performance.now() + waitMs;
      const left = deadline - performance.now();
      if (left <= 0) throw busyAsStorageError(error);
      await sleep(Math.min(retryDelayMs(attempt), left));
    }
  }
}

/** `repository` with every method retried while it meets SQLITE_BUSY (retryWhileBusy). */
export function retryingWhileBusy<T extends object>(repository: T, waitMs: number): T {
  const retrying: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(repository)) {
    if (typeof member !== 'function') {
      retrying[name] = member;
      continue;
    }
    const method = member as (...args: unknown[]) => unknown;
    const again = (args: unknown[]): Promise<unknown> => retryWhileBusy(async () => method.apply(repository, args), waitMs);
    // The usual call meets no lock: its own promise, with only a handler for SQLITE_BUSY added, or,
    // for a method that answers at once (a list read), its answer as it is.
    retrying[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(repository, args);
      } catch (error) {
        if (isDatabaseBusy(error)) return again(args);
        throw error;
      }
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => (isDatabaseBusy(error) ? again(args) : Promise.reject(error)));
    };
  }
  return retrying as T;
}

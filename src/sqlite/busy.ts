import { StorageBusyError } from '../db/errors.ts';

const SQLITE_BUSY = 5;

/** True for SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isDatabaseBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_BUSY;
}

/**
 * Another process held the write lock for longer than busy_timeout: a moment of overload, not a
 * fault, so it becomes StorageBusyError (answered 503 with Retry-After). Other errors pass as they are.
 */
export function busyAsStorageError(error: unknown): unknown {
  return isDatabaseBusy(error) ? new StorageBusyError('the database is locked by another writer') : error;
}

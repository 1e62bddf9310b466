import { HttpError } from '../http/errors.ts';

const SQLITE_BUSY = 5;

/** True for SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isDatabaseBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_BUSY;
}

/**
 * Another process held the write lock for longer than busy_timeout: that is a moment of overload,
 * so the client gets 503 with Retry-After (nothing was written), not a 500. Other errors pass as they are.
 */
export function busyAsUnavailable(error: unknown): unknown {
  if (!isDatabaseBusy(error)) return error;
  return new HttpError('unavailable', { detail: 'The database is busy; nothing was written. Retry shortly.', headers: { 'retry-after': '1' } });
}

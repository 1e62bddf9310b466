import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Durability } from '../shared/settings.ts';
import { isPostgresUrl } from '../db/database-url.ts';
import { isDatabaseBusy } from './busy.ts';

export interface OpenOptions {
  /** `full` fsyncs every commit (survives power loss); `normal` survives a process crash. */
  durability?: Durability;
  /** Create the file (and its folder) when missing; only migrations do this. */
  create?: boolean;
  readOnly?: boolean;
  /**
   * How long a statement waits, blocking the thread, for another connection's lock before it fails
   * with SQLITE_BUSY: 0 (the default) for a connection that serves requests, whose writes wait on
   * timers instead (WriteBatcher); a command-line tool such as `bin/migrate.js` may block.
   */
  busyTimeoutMs?: number;
}

/** Raised when the database file the service should use does not exist. */
export class DatabaseMissingError extends Error {
  override name = 'DatabaseMissingError';
}

// Opening may meet another connection's lock (WAL recovery after a crash, a checkpoint that ends
// the last connection); a process that is opening serves nothing yet, so it may block that long.
const OPEN_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens a SQLite database in WAL mode with the pragmas this service relies on. Opening itself may
 * wait (blocking, up to 5 s) for another connection's lock; the connection returned then waits only
 * `busyTimeoutMs` (none by default).
 */
export function openDatabase(path: string, options: OpenOptions = {}): DatabaseSync {
  // SQLite would take a URL for a file name and create it; say which function the caller meant.
  if (isPostgresUrl(path)) throw new TypeError('openDatabase opens SQLite files; open a PostgreSQL URL with openPostgres(url)');
  const inMemory = path === ':memory:' || path === '';
  if (options.create === true && !inMemory) mkdirSync(dirname(path), { recursive: true });
  // SQLite creates a missing file on open; only migrations may do that.
  if (options.create !== true && !inMemory && !existsSync(path)) {
    throw new DatabaseMissingError(`database file ${path} does not exist`);
  }
  const busyTimeoutMs = busyTimeoutOf(options);
  const db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
  try {
    db.exec(`PRAGMA busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    if (!inMemory && options.readOnly !== true) switchToWal(db);
    db.exec(`PRAGMA synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.exec('PRAGMA foreign_keys = ON');
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  } catch (error) {
    // A file that is not a database, or a lock held past the wait: nothing is left open.
    db.close();
    throw error;
  }
  return db;
}

// Switching a new file to WAL can meet SQLITE_BUSY without SQLite's busy handler being called, while
// another process (a second migrator) opens the same file: try again until the opening wait is over.
function switchToWal(db: DatabaseSync): void {
  const deadline = Date.now() + OPEN_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (!isDatabaseBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, 5);
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function busyTimeoutOf(options: OpenOptions): number {
  const ms = options.busyTimeoutMs ?? 0;
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`busyTimeoutMs must be a whole number of milliseconds, 0 or more; got ${ms}`);
  return ms;
}

/** Reads PRAGMA user_version: the number of the last migration applied. */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get();
  return Number(row?.['user_version'] ?? 0);
}

/**
 * Reads the user_version of the file at `path` through a read-only connection, so a file that is
 * empty or not yet in WAL mode is left byte for byte as it was (opening for writing would convert it).
 */
export function readSchemaVersionOf(path: string): number {
  if (!existsSync(path)) throw new DatabaseMissingError(`database file ${path} does not exist`);
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    // Another process may be migrating this very file: wait for its lock (this runs before serving).
    db.exec(`PRAGMA busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    return schemaVersion(db);
  } finally {
    db.close();
  }
}

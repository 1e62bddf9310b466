import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { type EventRead, type EventType, type StoredEvent, typeMask } from '../events/model.ts';
import type { EventRepository } from '../events/repository.ts';
import { BOUND_LIMIT } from './limit.ts';

type Row = readonly SQLOutputValue[];

/** How the events' reads learn the time before which events are expired, and how deletions run. */
export interface SqliteEventOptions {
  /** SVC_EVENTS_RETENTION in milliseconds. */
  retentionMs: number;
  /** Runs a write in the storage's group commit (the one writer of this connection). */
  write<T>(work: () => Promise<T>): Promise<T>;
}

/** The wire id of a position: its decimal digits. */
const idOf = (position: number | bigint): string => String(position);

/** The position an id names, or null when it is not one this engine issues. */
export function positionOf(id: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(id)) return null;
  const position = Number(id);
  return Number.isSafeInteger(position) ? position : null;
}

/**
 * The EventRepository on node:sqlite. Positions commit in order (one writer at a time) and a reader
 * sees whole commits, so every event is visible once committed and the feed is ordered by position.
 * Each read is one statement, so the horizon and the rows it reads are of one snapshot.
 */
export function createSqliteEventRepository(db: DatabaseSync, options: SqliteEventOptions): EventRepository {
  const page = db.prepare(
    `SELECT position, type, created_at, data FROM events WHERE position > ? AND created_at >= ? AND ((? >> type) & 1) = 1 ORDER BY position ${BOUND_LIMIT}`,
  );
  // Where `after` stands: the horizon of retention, whether its event exists, and when the next event (of any type) was recorded.
  const place = db.prepare(
    'SELECT (SELECT position FROM events_horizon WHERE id = 1), EXISTS (SELECT 1 FROM events WHERE position = ?), (SELECT created_at FROM events WHERE position > ? ORDER BY position LIMIT 1)',
  );
  const newest = db.prepare('SELECT position FROM events ORDER BY position DESC LIMIT 1');
  // Whether a position is gone: the newest deleted position, and when the event there was recorded (if kept).
  const standing = db.prepare('SELECT (SELECT position FROM events_horizon WHERE id = 1), (SELECT created_at FROM events WHERE position = ?)');
  const oldest = db.prepare(`SELECT position, created_at FROM events ORDER BY position ${BOUND_LIMIT}`);
  const deleteThrough = db.prepare('DELETE FROM events WHERE position <= ?');
  const remember = db.prepare('INSERT INTO events_horizon (id, position) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET position = max(position, excluded.position)');
  for (const read of [page, place, newest, oldest, standing]) read.setReturnArrays(true);
  const keptSince = (): string => new Date(Date.now() - options.retentionMs).toISOString();

  const whereIs = (position: number, since: string): EventRead | null => {
    const [horizon, exists, next] = place.get(position, position) as unknown as [number | null, number, string | null];
    if (horizon !== null && position < horizon) return { kind: 'expired' };
    if (position !== horizon && exists === 0) return { kind: 'unknown' };
    if (next !== null && next < since) return { kind: 'expired' };
    return null;
  };

  return {
    async readAfter(after, limit, types) {
      const since = keptSince();
      let position = 0;
      if (after !== null) {
        const parsed = positionOf(after);
        if (parsed === null) return { kind: 'malformed' };
        const refusal = whereIs(parsed, since);
        if (refusal !== null) return refusal;
        position = parsed;
      }
      const rows = page.all(position, since, typeMask(types), limit) as unknown as Row[];
      return { kind: 'events', events: rows.map(eventFromRow) };
    },
    async head() {
      const row = newest.get() as Row | undefined;
      return row === undefined ? null : idOf(row[0] as number);
    },
    async isExpired(id) {
      const position = positionOf(id);
      if (position === null) return false;
      const [horizon, createdAt] = standing.get(position) as unknown as [number | null, string | null];
      return (horizon !== null && position <= horizon) || (createdAt !== null && createdAt < keptSince());
    },
    deleteExpired: (maxRows) =>
      options.write(async () => {
        const through = expiredPrefixEnd(oldest.all(maxRows) as unknown as Row[], keptSince());
        if (through === null) return 0;
        const deleted = Number(deleteThrough.run(through).changes);
        remember.run(through);
        return deleted;
      }),
  };
}

// The last position of the leading run of expired events, or null when the oldest is still kept.
function expiredPrefixEnd(rows: readonly Row[], since: string): number | null {
  let through: number | null = null;
  for (const [position, createdAt] of rows) {
    if ((createdAt as string) >= since) break;
    through = position as number;
  }
  return through;
}

function eventFromRow(row: Row): StoredEvent {
  return { id: idOf(row[0] as number), type: row[1] as EventType, createdAt: row[2] as string, row: JSON.parse(row[3] as string) as unknown[] };
}

import type { SqlRunner } from './client.ts';
import { isoText } from './sql.ts';
import type { EventRead, EventType, StoredEvent } from '../events/model.ts';
import type { EventRepository } from '../events/repository.ts';

/** An event's place in the feed: the id of its transaction and its number, as decimal text. */
export interface FeedPlace {
  tx: string;
  seq: string;
}

const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;
const ALL_TYPES = 0b1111110;
// The oldest transaction that may still commit: events below it are visible, and final.
const VISIBLE = 'tx < pg_snapshot_xmin(pg_current_snapshot())';
const AFTER = '(tx, seq) > ($1::xid8, $2::bigint)';

/** The place an id names (`<tx>_<seq>`), or null when it is not one this engine issues. */
export function placeOf(id: string): FeedPlace | null {
  // No leading zero: PostgreSQL reads one as octal, and an issued id never has one (one place, one spelling).
  const match = /^(0|[1-9][0-9]{0,19})_([1-9][0-9]{0,18})$/.exec(id);
  if (match === null) return null;
  const [, tx = '', seq = ''] = match;
  return BigInt(tx) <= MAX_XID8 && BigInt(seq) <= MAX_BIGINT ? { tx, seq } : null;
}

// The places are read as text under other names: ORDER BY prefers an output column's name, and the
// text of 1000 sorts before the text of 999.
const PAGE =
  `SELECT tx::text AS tx_text, seq::text AS seq_text, type, ${isoText('created_at')}, data FROM events ` +
  `WHERE ${AFTER} AND ${VISIBLE} AND created_at >= $3 AND (($4::int >> type) & 1) = 1 ORDER BY tx, seq LIMIT $5`;
// Where `after` stands, in one snapshot: below the horizon of retention, at it, its event visible, the next event (any type) expired.
const PLACE =
  `SELECT coalesce((SELECT (tx, seq) > ($1::xid8, $2::bigint) FROM events_horizon WHERE id = 1), false), ` +
  `coalesce((SELECT (tx, seq) = ($1::xid8, $2::bigint) FROM events_horizon WHERE id = 1), false), ` +
  `EXISTS (SELECT 1 FROM events WHERE tx = $1::xid8 AND seq = $2::bigint AND ${VISIBLE}), ` +
  `coalesce((SELECT created_at < $3 FROM events WHERE ${AFTER} AND ${VISIBLE} ORDER BY tx, seq LIMIT 1), false)`;
// Whether a place is gone: at or below the newest deleted place, or its event recorded before $3.
const GONE =
  `SELECT coalesce((SELECT (tx, seq) >= ($1::xid8, $2::bigint) FROM events_horizon WHERE id = 1), false) ` +
  `OR coalesce((SELECT created_at < $3 FROM events WHERE tx = $1::xid8 AND seq = $2::bigint), false)`;
const NEWEST = `SELECT tx::text AS tx_text, seq::text AS seq_text FROM events WHERE ${VISIBLE} ORDER BY tx DESC, seq DESC LIMIT 1`;
// One statement, so one short transaction: the leading run of expired events among the oldest $1
// visible ones is deleted, and the newest deleted place remembered (it only ever moves forwards).
const DELETE_EXPIRED = `WITH head AS (SELECT tx, seq, created_at FROM events WHERE ${VISIBLE} ORDER BY tx, seq LIMIT $1),
kept AS (SELECT tx, seq FROM head WHERE created_at >= $2 ORDER BY tx, seq LIMIT 1),
doomed AS (SELECT tx, seq FROM head WHERE NOT EXISTS (SELECT 1 FROM kept) OR (tx, seq) < (SELECT tx, seq FROM kept)),
gone AS (DELETE FROM events e USING doomed d WHERE e.tx = d.tx AND e.seq = d.seq RETURNING e.tx, e.seq),
newest AS (SELECT tx, seq FROM gone ORDER BY tx DESC, seq DESC LIMIT 1),
remembered AS (INSERT INTO events_horizon (id, tx, seq) SELECT 1, tx, seq FROM newest
  ON CONFLICT (id) DO UPDATE SET tx = excluded.tx, seq = excluded.seq WHERE (events_horizon.tx, events_horizon.seq) < (excluded.tx, excluded.seq))
SELECT count(*)::int FROM gone`;

const idOf = (tx: unknown, seq: unknown): string => `${String(tx)}_${String(seq)}`;

/** The bit mask of a set of event types (bit n for type n), the form the feed's statement takes. */
function typeMask(types: readonly EventType[] | null): number {
  return types === null ? ALL_TYPES : types.reduce((mask, type) => mask | (1 << type), 0);
}

/**
 * The EventRepository on PostgreSQL. The feed is ordered by (tx, seq) and shows only events whose
 * transaction id is below the reading statement's snapshot xmin: every transaction below it has
 * ended, and any transaction still to commit has an id at or above it, so no event can ever appear
 * before a place a reader has passed (docs/events.md, the ordering argument).
 */
export function createPostgresEventRepository(db: SqlRunner, retentionMs: number): EventRepository {
  const keptSince = (): string => new Date(Date.now() - retentionMs).toISOString();
  const whereIs = async (place: FeedPlace, since: string): Promise<EventRead | null> => {
    const [row = []] = await db.rows(PLACE, [place.tx, place.seq, since]);
    const [belowHorizon, atHorizon, exists, nextExpired] = row as [boolean, boolean, boolean, boolean];
    if (belowHorizon) return { kind: 'expired' };
    if (!atHorizon && !exists) return { kind: 'unknown' };
    return nextExpired ? { kind: 'expired' } : null;
  };
  return {
    async readAfter(after, limit, types) {
      const since = keptSince();
      let place: FeedPlace = { tx: '0', seq: '0' };
      if (after !== null) {
        const parsed = placeOf(after);
        if (parsed === null) return { kind: 'malformed' };
        const refusal = await whereIs(parsed, since);
        if (refusal !== null) return refusal;
        place = parsed;
      }
      const rows = await db.rows(PAGE, [place.tx, place.seq, since, typeMask(types), limit]);
      return { kind: 'events', events: rows.map(eventFromRow) };
    },
    async head() {
      const [row] = await db.rows(NEWEST);
      return row === undefined ? null : idOf(row[0], row[1]);
    },
    async isExpired(id) {
      const place = placeOf(id);
      if (place === null) return false;
      const [row] = await db.rows(GONE, [place.tx, place.seq, keptSince()]);
      return row?.[0] === true;
    },
    async deleteExpired(maxRows) {
      const [row] = await db.rows(DELETE_EXPIRED, [maxRows, keptSince()]);
      return Number(row?.[0] ?? 0);
    },
  };
}

function eventFromRow(row: unknown[]): StoredEvent {
  return { id: idOf(row[0], row[1]), type: row[2] as EventType, createdAt: row[3] as string, row: JSON.parse(row[4] as string) as unknown[] };
}

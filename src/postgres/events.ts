import type { SqlRunner } from './client.ts';
import { isoText } from './sql.ts';
import { type EventRead, type EventType, type StoredEvent, typeMask } from '../events/model.ts';
import type { EventRepository } from '../events/repository.ts';

/** The event an id names: its transaction's id and its number, as decimal text. */
export interface FeedPlace {
  tx: string;
  seq: string;
}

const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;

/** The place an id names (`<tx>_<seq>`), or null when it is not one this engine issues. */
export function placeOf(id: string): FeedPlace | null {
  // No leading zero: PostgreSQL reads one as octal, and an issued id never has one (one place, one spelling).
  const match = /^(0|[1-9][0-9]{0,19})_([1-9][0-9]{0,18})$/.exec(id);
  if (match === null) return null;
  const [, tx = '', seq = ''] = match;
  return BigInt(tx) <= MAX_XID8 && BigInt(seq) <= MAX_BIGINT ? { tx, seq } : null;
}

// The feed is the positioned events in position order (src/postgres/sequencer.ts gives positions after
// commit, in order, one batch after the other): a reader never sees a position before one it passed.
// Positions are read as text, and ids are `<tx>_<seq>` as before positions existed.
const PAGE =
  `SELECT tx::text AS tx_text, seq::text AS seq_text, type, ${isoText('created_at')}, data FROM events ` +
  'WHERE position > $1::bigint AND created_at >= $2 AND (($3::bigint >> type) & 1) = 1 ORDER BY position LIMIT $4';
// Where `after` (tx $1, seq $2) stands, in one snapshot: whether its event is kept, its position (or the
// horizon's, when it is the newest deleted event), whether retention deleted it, and whether the next
// event (any type) is past retention.
const PLACE = `WITH target AS (SELECT position FROM events WHERE tx = $1::xid8 AND seq = $2::bigint),
horizon AS (SELECT position, (tx, seq) = ($1::xid8, $2::bigint) AS here, $2::bigint <= deleted_seq AS deleted FROM events_horizon WHERE id = 1),
place AS (SELECT coalesce((SELECT position FROM target), (SELECT position FROM horizon WHERE here)) AS position)
SELECT EXISTS (SELECT 1 FROM target), (SELECT position::text FROM place), coalesce((SELECT deleted FROM horizon), false),
  coalesce((SELECT created_at < $3 FROM events WHERE position > (SELECT position FROM place) ORDER BY position LIMIT 1), false)`;
const NEWEST = 'SELECT tx::text AS tx_text, seq::text AS seq_text FROM events WHERE position IS NOT NULL ORDER BY position DESC LIMIT 1';
// Whether an event the service issued is gone: recorded before $3, or (no longer in the table)
// deleted by retention: the horizon's own, or a seq at most the largest ever deleted.
const GONE =
  `SELECT coalesce((SELECT created_at < $3 FROM events WHERE tx = $1::xid8 AND seq = $2::bigint), ` +
  `(SELECT $2::bigint <= deleted_seq OR (tx, seq) = ($1::xid8, $2::bigint) FROM events_horizon WHERE id = 1), false)`;
// One statement, so one short transaction: the leading run of expired events among the oldest $1
// positioned ones is deleted, and the newest deleted remembered (it only ever moves forwards), with
// the largest seq ever deleted.
const DELETE_EXPIRED = `WITH head AS (SELECT tx, seq, position, created_at FROM events WHERE position IS NOT NULL ORDER BY position LIMIT $1),
kept AS (SELECT position FROM head WHERE created_at >= $2 ORDER BY position LIMIT 1),
doomed AS (SELECT tx, seq FROM head WHERE NOT EXISTS (SELECT 1 FROM kept) OR position < (SELECT position FROM kept)),
gone AS (DELETE FROM events e USING doomed d WHERE e.tx = d.tx AND e.seq = d.seq RETURNING e.tx, e.seq, e.position),
newest AS (SELECT tx, seq, position, (SELECT max(seq) FROM gone) AS deleted_seq FROM gone ORDER BY position DESC LIMIT 1),
remembered AS (INSERT INTO events_horizon (id, tx, seq, position, deleted_seq) SELECT 1, tx, seq, position, deleted_seq FROM newest
  ON CONFLICT (id) DO UPDATE SET tx = excluded.tx, seq = excluded.seq, position = excluded.position,
    deleted_seq = greatest(events_horizon.deleted_seq, excluded.deleted_seq)
  WHERE events_horizon.position < excluded.position)
SELECT count(*)::int FROM gone`;

const idOf = (tx: unknown, seq: unknown): string => `${String(tx)}_${String(seq)}`;

// Where the feed goes on after an id: a position, "not yet" (its event is kept but has no position:
// nothing after it can be shown yet), or why not.
type After = { position: string } | { kind: 'pending' } | Exclude<EventRead, { kind: 'events' }>;

/**
 * The EventRepository on PostgreSQL. The feed is the events that have a position, in position order;
 * the sequencer gives committed events positions in one batch after another, so no event ever appears
 * before a place a reader has passed, and no transaction outside the service's writes holds the feed
 * back (docs/events.md, the ordering argument).
 */
export function createPostgresEventRepository(db: SqlRunner, retentionMs: number): EventRepository {
  const keptSince = (): string => new Date(Date.now() - retentionMs).toISOString();
  const positionAfter = async (id: string, since: string): Promise<After> => {
    const parsed = placeOf(id);
    if (parsed === null) return { kind: 'malformed' };
    const [row = []] = await db.rows(PLACE, [parsed.tx, parsed.seq, since]);
    const [kept, position, deleted, nextExpired] = row as [boolean, string | null, boolean, boolean];
    if (position === null) return kept ? { kind: 'pending' } : { kind: deleted ? 'expired' : 'unknown' };
    return nextExpired ? { kind: 'expired' } : { position };
  };
  return {
    async readAfter(after, limit, types) {
      const since = keptSince();
      const place = after === null ? { position: '0' } : await positionAfter(after, since);
      if ('kind' in place) return place.kind === 'pending' ? { kind: 'events', events: [] } : place;
      const rows = await db.rows(PAGE, [place.position, since, typeMask(types), limit]);
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

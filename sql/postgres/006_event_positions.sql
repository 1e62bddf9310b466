-- Events get a position, given after commit (docs/events.md, the ordering argument): writers insert an
-- event without one, and the one sequencer of the database (src/postgres/sequencer.ts) gives committed
-- events the next positions, in the order it finds them committed. The feed shows positioned events
-- only, ordered by position; its ids stay `<tx>_<seq>`, so ids already issued (cursors, webhook
-- deliveries) name the same events.
--
-- ALTER TABLE takes the table's ACCESS EXCLUSIVE lock: it waits for every transaction that wrote an
-- event to end and holds off new ones until this commits, so the events positioned here are every
-- event there is, and they keep the order the feed showed them in, (tx, seq).
ALTER TABLE events ADD COLUMN position bigint;
UPDATE events e SET position = o.position
FROM (SELECT tx, seq, row_number() OVER (ORDER BY tx, seq) AS position FROM events) o
WHERE e.tx = o.tx AND e.seq = o.seq;
CREATE UNIQUE INDEX events_position ON events (position);
-- What the sequencer reads: events still without a position, oldest insert first.
CREATE INDEX events_unpositioned ON events (seq) WHERE position IS NULL;

-- The horizon of retention in positions. `tx`, `seq` stay the newest deleted event's id (still a
-- valid `after`); `deleted_seq` is the largest `seq` retention ever deleted: an id that names no kept
-- event was deleted if its seq is at most that (410), else never issued (400). Events deleted before
-- this migration are all below position 1, and every seq taken so far counts as deleted.
ALTER TABLE events_horizon ADD COLUMN position bigint NOT NULL DEFAULT 0;
ALTER TABLE events_horizon ADD COLUMN deleted_seq bigint NOT NULL DEFAULT 0;
UPDATE events_horizon SET deleted_seq = greatest(seq, coalesce(pg_sequence_last_value(pg_get_serial_sequence('events', 'seq')::regclass), 0));

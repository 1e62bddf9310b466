-- Events, as sql/004_events.sql is for SQLite, ordered by (tx, seq): `tx` is the writing
-- transaction's id, `seq` orders its events. The feed shows only events whose tx is below the reading
-- statement's pg_snapshot_xmin: every transaction below it has ended, so no event can later commit
-- before a place a reader has passed (docs/events.md, the ordering argument). Writers never wait for
-- each other: a sequence and the transaction id are all they share.
CREATE TABLE events (
  tx         xid8        NOT NULL DEFAULT pg_current_xact_id(),
  seq        bigint      GENERATED ALWAYS AS IDENTITY,
  type       smallint    NOT NULL CHECK (type BETWEEN 1 AND 6),
  created_at timestamptz NOT NULL,
  data       text        NOT NULL,
  PRIMARY KEY (tx, seq)
);

-- The newest (tx, seq) deleted by retention: an `after` below it asks for events no longer kept.
CREATE TABLE events_horizon (
  id  smallint PRIMARY KEY CHECK (id = 1),
  tx  xid8     NOT NULL,
  seq bigint   NOT NULL
);

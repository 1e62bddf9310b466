-- Events (docs/events.md): one row per committed change of a product or a workspace, written by the
-- repositories in the transaction of the change. `position` orders the feed: SQLite has one writer
-- at a time, so positions commit in order, and AUTOINCREMENT never hands one out twice.
-- `type`: 1..6 (src/events/model.ts); `data`: the resource's row as a JSON array in its rows.ts
-- column order; `created_at`: RFC 3339 UTC with milliseconds, as every time here.
CREATE TABLE events (
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  type       INTEGER NOT NULL CHECK (type BETWEEN 1 AND 6),
  created_at TEXT    NOT NULL,
  data       TEXT    NOT NULL
) STRICT;

-- The newest position deleted by retention: an `after` below it asks for events no longer kept.
CREATE TABLE events_horizon (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  position INTEGER NOT NULL
) STRICT;

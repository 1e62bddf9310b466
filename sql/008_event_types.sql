-- Event types are numbered by each resource's description (src/<plural>/resource.ts), so a resource
-- added later brings types 7, 8, 9… without a migration of its own: `type` takes any number from 1
-- to 52 (the bit of a type mask stays exact in a JavaScript number), not only the 1..6 of the first
-- two resources. SQLite changes a CHECK only by making the table anew, so this does it once:
-- * the rows keep their positions, and the AUTOINCREMENT sequence keeps its high mark (retention may
--   have deleted the newest events: the next event must never take a position already issued);
-- * dropping the table drops the webhooks' fan-out trigger, which is made again as 005 made it.
CREATE TABLE events_v2 (
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  type       INTEGER NOT NULL CHECK (type BETWEEN 1 AND 52),
  created_at TEXT    NOT NULL,
  data       TEXT    NOT NULL
) STRICT;
INSERT INTO events_v2 (position, type, created_at, data) SELECT position, type, created_at, data FROM events ORDER BY position;
DELETE FROM sqlite_sequence WHERE name = 'events_v2';
INSERT INTO sqlite_sequence (name, seq) SELECT 'events_v2', seq FROM sqlite_sequence WHERE name = 'events';
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;

CREATE TRIGGER webhooks_fan_out AFTER INSERT ON events
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at)
  SELECT w.id, CAST(NEW.position AS TEXT), NEW.type, NEW.created_at, NEW.data, CAST(unixepoch('subsec') * 1000 AS INTEGER)
  FROM webhooks w
  WHERE w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> NEW.type) & 1 = 1);
END;

-- Nothing to do on SQLite: one writer at a time, so an event's position, taken at insert, already
-- commits in order (sql/004_events.sql). PostgreSQL's events get a position after commit
-- (sql/postgres/006_event_positions.sql); the same number keeps the engines at one version.
SELECT 1;

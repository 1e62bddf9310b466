-- Event types are numbered by each resource's description (src/<plural>/resource.ts), as
-- sql/008_event_types.sql says for SQLite: `type` takes any number from 1 to 52, and a webhook's
-- type mask needs 53 bits, so it becomes a bigint (the fan-out trigger shifts it as it is).
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type BETWEEN 1 AND 52);
ALTER TABLE webhooks ALTER COLUMN event_mask TYPE bigint;

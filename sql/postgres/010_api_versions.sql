-- API versions, as sql/010_api_versions.sql says for SQLite: keys, webhooks and deliveries carry the
-- version they are pinned to or made in; what exists already is pinned to the first, 2026-11-21.
ALTER TABLE api_keys ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-21';
-- A key's entity tag moves with every change of it; each key keeps the tag it had ("1", "2" once revoked).
ALTER TABLE api_keys ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);
UPDATE api_keys SET version = 2 WHERE revoked_at IS NOT NULL;
ALTER TABLE webhooks ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-21';
ALTER TABLE webhook_deliveries ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-21';

-- The fan-out copies the webhook's version into the delivery, in the statement that records the event.
CREATE OR REPLACE FUNCTION webhooks_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at, api_version)
  SELECT w.id, NEW.tx::text || '_' || NEW.seq, NEW.type,
         to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), NEW.data::text,
         (extract(epoch FROM clock_timestamp()) * 1000)::bigint, w.api_version
  FROM webhooks w
  WHERE w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> NEW.type) & 1 = 1);
  RETURN NULL;
END
$$;

-- API versions (docs/versions.md): keys and webhooks are pinned to a version, and each delivery is made
-- in its webhook's version at the moment its event was recorded. Everything made before versions
-- existed is pinned to the first, 2026-11-21, so it answers and delivers exactly as before.
ALTER TABLE api_keys ADD COLUMN api_version TEXT NOT NULL DEFAULT '2026-11-21';
-- A key's entity tag moves with every change of it (a PATCH of its name or version, its revocation). Tags
-- were "1", then "2" once revoked: each key keeps the tag it had.
ALTER TABLE api_keys ADD COLUMN version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1);
UPDATE api_keys SET version = 2 WHERE revoked_at IS NOT NULL;
ALTER TABLE webhooks ADD COLUMN api_version TEXT NOT NULL DEFAULT '2026-11-21';
ALTER TABLE webhook_deliveries ADD COLUMN api_version TEXT NOT NULL DEFAULT '2026-11-21';

-- The fan-out copies the webhook's version into the delivery, in the event's own transaction.
DROP TRIGGER webhooks_fan_out;
CREATE TRIGGER webhooks_fan_out AFTER INSERT ON events
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at, api_version)
  SELECT w.id, CAST(NEW.position AS TEXT), NEW.type, NEW.created_at, NEW.data, CAST(unixepoch('subsec') * 1000 AS INTEGER), w.api_version
  FROM webhooks w
  WHERE w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> NEW.type) & 1 = 1);
END;

-- Webhooks and their deliveries (docs/webhooks.md). `id` with AUTOINCREMENT is never reused.
-- `event_mask` holds the event types a webhook takes, one bit per type number (NULL: every type).
-- The secret is kept as it is (an HMAC needs it); after a rotation the previous one signs too until
-- `previous_secret_until` (Unix ms).
CREATE TABLE webhooks (
  id                    INTEGER PRIMARY KEY AUTOINCREMENT,
  url                   TEXT    NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  event_mask            INTEGER CHECK (event_mask > 0),
  status                INTEGER NOT NULL CHECK (status IN (1, 2)),
  secret                TEXT    NOT NULL,
  previous_secret       TEXT,
  previous_secret_until INTEGER,
  created_at            TEXT    NOT NULL,
  updated_at            TEXT    NOT NULL,
  version               INTEGER NOT NULL DEFAULT 1
) STRICT;

-- One row per (event, webhook that took it while enabled), made by the trigger below in the event's
-- own transaction. It keeps a copy of the event (id, type, time, data), so the same bytes are sent on
-- every attempt even after retention deleted the event. Times are Unix ms. status: 1 pending,
-- 2 delivered, 3 failed. `next_attempt_at` NULL: nothing planned (done, or its webhook disabled).
-- `round_attempts` counts the attempts of the current schedule (a manual retry starts it again).
-- A claim sets `claimed_until` (the lease) and `claim_token`; an outcome is recorded only under the
-- same token, and an expired lease lets another process attempt it again.
CREATE TABLE webhook_deliveries (
  seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id           INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id             TEXT    NOT NULL,
  event_type           INTEGER NOT NULL,
  event_created_at     TEXT    NOT NULL,
  event_data           TEXT    NOT NULL,
  status               INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2, 3)),
  attempts             INTEGER NOT NULL DEFAULT 0,
  round_attempts       INTEGER NOT NULL DEFAULT 0,
  last_attempt_at      INTEGER,
  last_response_status INTEGER,
  next_attempt_at      INTEGER,
  claimed_until        INTEGER,
  claim_token          INTEGER,
  UNIQUE (webhook_id, event_id)
) STRICT;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 1 AND next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, seq);
CREATE INDEX webhook_deliveries_log_status ON webhook_deliveries (webhook_id, status, seq);

-- The fan-out, in the transaction that records the event: one delivery per enabled webhook that takes its type.
CREATE TRIGGER webhooks_fan_out AFTER INSERT ON events
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at)
  SELECT w.id, CAST(NEW.position AS TEXT), NEW.type, NEW.created_at, NEW.data, CAST(unixepoch('subsec') * 1000 AS INTEGER)
  FROM webhooks w
  WHERE w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> NEW.type) & 1 = 1);
END;

-- Webhooks and their deliveries, as sql/005_webhooks.sql is for SQLite: ids from identity columns
-- (never reused), the event types as a bit mask (NULL: every type), times of attempts in Unix ms.
CREATE TABLE webhooks (
  id                    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  url                   text        NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
  event_mask            integer     CHECK (event_mask > 0),
  status                smallint    NOT NULL CHECK (status IN (1, 2)),
  secret                text        NOT NULL,
  previous_secret       text,
  previous_secret_until bigint,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  version               integer     NOT NULL DEFAULT 1
);

-- A copy of the event in each delivery (its wire id, type, time as RFC 3339 text, data), so the same
-- bytes are sent after retention deleted the event.
CREATE TABLE webhook_deliveries (
  seq                  bigint   GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id           bigint   NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id             text     NOT NULL,
  event_type           smallint NOT NULL,
  event_created_at     text     NOT NULL,
  event_data           text     NOT NULL,
  status               smallint NOT NULL DEFAULT 1 CHECK (status IN (1, 2, 3)),
  attempts             integer  NOT NULL DEFAULT 0,
  round_attempts       integer  NOT NULL DEFAULT 0,
  last_attempt_at      bigint,
  last_response_status integer,
  next_attempt_at      bigint,
  claimed_until        bigint,
  claim_token          bigint,
  UNIQUE (webhook_id, event_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 1 AND next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, seq);
CREATE INDEX webhook_deliveries_log_status ON webhook_deliveries (webhook_id, status, seq);

-- The fan-out, in the statement that records the event (the one-statement writes stay one statement).
CREATE FUNCTION webhooks_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at)
  SELECT w.id, NEW.tx::text || '_' || NEW.seq, NEW.type,
         to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), NEW.data::text,
         (extract(epoch FROM clock_timestamp()) * 1000)::bigint
  FROM webhooks w
  WHERE w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> NEW.type) & 1 = 1);
  RETURN NULL;
END
$$;

CREATE TRIGGER webhooks_fan_out AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhooks_fan_out();

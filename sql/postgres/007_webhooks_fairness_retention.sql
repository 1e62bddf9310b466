-- Webhooks after issue 29, as sql/007_webhooks_fairness_retention.sql is for SQLite: whether the last
-- attempt failed (NULL: none yet), the deleted mark, and the indexes of fair claims and of retention.
ALTER TABLE webhooks ADD COLUMN last_attempt_failed boolean;
ALTER TABLE webhooks ADD COLUMN deleted boolean NOT NULL DEFAULT false;

CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 1 AND next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (event_created_at) WHERE status <> 1;

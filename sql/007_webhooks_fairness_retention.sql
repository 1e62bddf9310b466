-- Webhooks after issue 29 (docs/webhooks.md): fair claims, deletion in steps, the log following retention.
-- `last_attempt_failed`: whether the webhook's last recorded attempt failed (NULL: none yet); a claim
-- serves the webhooks that answer first, and those whose last attempt failed take at most half a
-- process's slots. `deleted`: deleted by DELETE /api/webhooks/{id}, which answers at once; the webhook
-- is disabled too, and its log is deleted in bounded steps, then the row itself.
ALTER TABLE webhooks ADD COLUMN last_attempt_failed INTEGER CHECK (last_attempt_failed IN (0, 1));
ALTER TABLE webhooks ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1));

-- A claim reads each webhook's oldest due deliveries: one probe per webhook, whatever the backlog of the others.
CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 1 AND next_attempt_at IS NOT NULL;
-- Retention deletes ended deliveries (delivered, failed) by their event's time.
CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (event_created_at) WHERE status <> 1;

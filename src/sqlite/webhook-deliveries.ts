import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { type Delivery, DeliveryStatus, WebhookStatus } from '../webhooks/model.ts';
import type { DeliveryRepository } from '../webhooks/repository.ts';
import { DELIVERY_COLUMNS, deliveryFromRow } from '../webhooks/rows.ts';
import { sqliteClaim } from './webhook-claims.ts';
import { BOUND_LIMIT } from './limit.ts';

const COLUMNS = DELIVERY_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

/** A DeliveryRepository on node:sqlite; statements are prepared once. */
export function createSqliteDeliveryRepository(db: DatabaseSync): DeliveryRepository {
  const page = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND seq < ? ORDER BY seq DESC ${BOUND_LIMIT}`);
  const pageOfStatus = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND status = ? AND seq < ? ORDER BY seq DESC ${BOUND_LIMIT}`);
  const byEvent = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?`);
  const restart = db.prepare('UPDATE webhook_deliveries SET status = 1, round_attempts = 0, next_attempt_at = ?, claimed_until = NULL, claim_token = NULL WHERE seq = ?');
  const pause = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 1');
  const resume = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 1 AND next_attempt_at IS NULL');
  const record = db.prepare(
    `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, round_attempts = round_attempts + 1, last_attempt_at = ?,
       last_response_status = ?, claimed_until = NULL, claim_token = NULL,
       -- A webhook disabled meanwhile plans nothing: its deliveries go on when it is enabled again.
       next_attempt_at = CASE WHEN (SELECT status FROM webhooks WHERE id = webhook_id) = ${WebhookStatus.enabled} THEN ? END
     WHERE seq = ? AND claim_token = ?`,
  );
  const disable = db.prepare(
    `UPDATE webhooks SET status = ${WebhookStatus.disabled}, version = version + 1, updated_at = ?
     WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE seq = ?) AND status = ${WebhookStatus.enabled}`,
  );
  const remember = db.prepare(
    'UPDATE webhooks SET last_attempt_failed = ? WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE seq = ?) AND last_attempt_failed IS NOT ?',
  );
  const pauseOfDelivery = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE status = 1 AND webhook_id = (SELECT webhook_id FROM webhook_deliveries WHERE seq = ?)');
  // The first in the due index that no lease holds (the scan stops there, past the leased ones
  // only), and whether any webhook is enabled.
  const nextDue = db.prepare(
    'SELECT (SELECT next_attempt_at FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_attempt_at LIMIT 1), ' +
      `EXISTS (SELECT 1 FROM webhooks WHERE status = ${WebhookStatus.enabled})`,
  );
  const oldest = db.prepare('SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL');
  // Retention's steps (src/webhooks/retention.ts), each bounded by its LIMIT; the webhooks (few) are
  // read first, then their deliveries by the (webhook_id, status, seq) index, never a scan of the log.
  const removeOfDeleted = db.prepare(
    `DELETE FROM webhook_deliveries WHERE seq IN (SELECT seq FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE deleted = 1) ${BOUND_LIMIT})`,
  );
  const dropDeleted = db.prepare('DELETE FROM webhooks WHERE deleted = 1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = webhooks.id)');
  const failExpired = db.prepare(
    `UPDATE webhook_deliveries SET status = ${DeliveryStatus.failed}, next_attempt_at = NULL WHERE seq IN (
       SELECT seq FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE status = ${WebhookStatus.disabled})
         AND status = ${DeliveryStatus.pending} AND event_created_at < ? ${BOUND_LIMIT})`,
  );
  const deleteExpired = db.prepare(
    `DELETE FROM webhook_deliveries WHERE seq IN (
       SELECT seq FROM webhook_deliveries WHERE status <> ${DeliveryStatus.pending} AND event_created_at < ? ORDER BY event_created_at ${BOUND_LIMIT})`,
  );
  for (const read of [page, pageOfStatus, byEvent, nextDue, oldest]) read.setReturnArrays(true);
  return {
    async listBefore(webhookId, beforeSeq, limit, status) {
      const below = beforeSeq ?? Number.MAX_SAFE_INTEGER;
      const rows = (status === null ? page.all(webhookId, below, limit) : pageOfStatus.all(webhookId, status, below, limit)) as unknown as Row[];
      return rows.map(deliveryFromRow);
    },
    // A write transaction here is BEGIN IMMEDIATE: it already holds the database's write lock.
    async findForUpdate(webhookId, eventId): Promise<Delivery | undefined> {
      const row = byEvent.get(webhookId, eventId) as Row | undefined;
      return row === undefined ? undefined : deliveryFromRow(row);
    },
    async restart(seq, now) {
      restart.run(now, seq);
    },
    async pauseOrResume(webhookId, now) {
      if (now === null) pause.run(webhookId);
      else resume.run(now, webhookId);
    },
    claim: sqliteClaim(db),
    async record(attempt) {
      const { changes } = record.run(
        attempt.status, attempt.attemptedAt, attempt.responseStatus, attempt.nextAttemptAt, attempt.seq, attempt.claimToken,
      );
      if (changes === 0) return;
      const failed = attempt.status === DeliveryStatus.delivered ? 0 : 1;
      remember.run(failed, attempt.seq, failed);
      if (!attempt.disableWebhook) return;
      disable.run(new Date(attempt.attemptedAt).toISOString(), attempt.seq);
      pauseOfDelivery.run(attempt.seq);
    },
    async nextDue(now) {
      const row = nextDue.get(now) as Row | undefined;
      return { at: row?.[0] === null || row?.[0] === undefined ? null : Number(row[0]), anyEnabled: row?.[1] === 1 };
    },
    async oldestPending() {
      const row = oldest.get() as Row | undefined;
      return typeof row?.[0] === 'string' ? Date.parse(row[0]) : null;
    },
    async removeOfDeleted(maxRows) {
      const { changes } = removeOfDeleted.run(maxRows);
      if (changes < maxRows) dropDeleted.run();
      return Number(changes);
    },
    failExpired: async (maxRows, keptSince) => Number(failExpired.run(keptSince, maxRows).changes),
    deleteExpired: async (maxRows, keptSince) => Number(deleteExpired.run(keptSince, maxRows).changes),
  };
}

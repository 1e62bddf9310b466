import type { SqlRunner } from './client.ts';
import { type ClaimedDelivery, WebhookStatus } from '../webhooks/model.ts';
import type { DeliveryRepository } from '../webhooks/repository.ts';
import { candidatesFor, claimedFromRow, DELIVERY_COLUMNS, deliveryFromRow, pickFairly } from '../webhooks/rows.ts';

const COLUMNS = DELIVERY_COLUMNS.join(', ');

// What a claim reads: the delivery, its copy of the event, and where and with what to send it.
const CLAIM_COLUMNS =
  'd.seq, d.webhook_id, d.event_id, d.event_type, d.event_created_at, d.event_data, d.round_attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until';


const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** A DeliveryRepository on PostgreSQL, running its statements on `db` (the pool, or one transaction). */
export function createPostgresDeliveryRepository(db: SqlRunner): DeliveryRepository {
  return {
    async listBefore(webhookId, beforeSeq, limit, status) {
      const below = beforeSeq ?? Number.MAX_SAFE_INTEGER;
      const rows =
        status === null
          ? await db.rows(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`, [webhookId, below, limit])
          : await db.rows(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND status = $2 AND seq < $3 ORDER BY seq DESC LIMIT $4`, [
              webhookId, status, below, limit,
            ]);
      return rows.map(deliveryFromRow);
    },
    async findForUpdate(webhookId, eventId) {
      const [row] = await db.rows(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 FOR UPDATE`, [webhookId, eventId]);
      return row === undefined ? undefined : deliveryFromRow(row);
    },
    async restart(seq, now) {
      await db.run('UPDATE webhook_deliveries SET status = 1, round_attempts = 0, next_attempt_at = $1, claimed_until = NULL, claim_token = NULL WHERE seq = $2', [now, seq]);
    },
    async pauseOrResume(webhookId, now) {
      if (now === null) await db.run('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = $1 AND status = 1', [webhookId]);
      else await db.run('UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE webhook_id = $2 AND status = 1 AND next_attempt_at IS NULL', [now, webhookId]);
    },
    // SKIP LOCKED: another node's claim in progress is passed over, never waited for; the rows this
    // claim reads but does not take are released at its COMMIT.
    async claim(request) {
      const rows = await db.rows(
        `SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 1 AND d.next_attempt_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1) AND w.status = ${WebhookStatus.enabled}
           AND d.webhook_id <> ALL ($2::bigint[])
         ORDER BY d.next_attempt_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED`,
        [request.now, request.excludeWebhooks, candidatesFor(request)],
      );
      const picked = pickFairly(rows, (row) => Number(row[1]), request.limit, request.perWebhook);
      if (picked.length === 0) return [];
      await db.run('UPDATE webhook_deliveries SET claimed_until = $1, claim_token = $2 WHERE seq = ANY ($3::bigint[])', [
        request.leaseUntil, request.claimToken, picked.map((row) => Number(row[0])),
      ]);
      return picked.map((row) => claimedFromRow(row, request.now, request.claimToken));
    },
    async record(attempt) {
      const [row] = await db.rows(
        `UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1, round_attempts = round_attempts + 1, last_attempt_at = $2,
           last_response_status = $3, claimed_until = NULL, claim_token = NULL,
           -- A webhook disabled meanwhile plans nothing: its deliveries go on when it is enabled again.
           next_attempt_at = CASE WHEN (SELECT status FROM webhooks WHERE id = webhook_id) = ${WebhookStatus.enabled} THEN $4::bigint END
         WHERE seq = $5 AND claim_token = $6 RETURNING webhook_id`,
        [attempt.status, attempt.attemptedAt, attempt.responseStatus, attempt.nextAttemptAt, attempt.seq, attempt.claimToken],
      );
      if (row === undefined || !attempt.disableWebhook) return;
      await db.run(
        `UPDATE webhooks SET status = ${WebhookStatus.disabled}, version = version + 1, updated_at = $1 WHERE id = $2 AND status = ${WebhookStatus.enabled}`,
        [new Date(attempt.attemptedAt).toISOString(), row[0]],
      );
      await db.run('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = $1 AND status = 1', [row[0]]);
    },
    async nextDue(now) {
      const [row] = await db.rows(
        'SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= $1)',
        [now],
      );
      return numberOrNull(row?.[0]);
    },
    async oldestPending() {
      const [row] = await db.rows('SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL');
      return typeof row?.[0] === 'string' ? Date.parse(row[0]) : null;
    },
  };
}

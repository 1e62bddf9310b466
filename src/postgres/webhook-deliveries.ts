import type { SqlRunner } from './client.ts';
import { DeliveryStatus, WebhookStatus } from '../webhooks/model.ts';
import type { DeliveryRepository } from '../webhooks/repository.ts';
import { CLAIM_COLUMNS, claimedFromRow, DELIVERY_COLUMNS, deliveryFromRow, dueFromRow } from '../webhooks/rows.ts';

const COLUMNS = DELIVERY_COLUMNS.join(', ');
// A delivery a claim may take at $1: pending, due, and held by no unexpired lease.
const DUE_NOW = 'd.status = 1 AND d.next_attempt_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)';
// The webhooks with something due, those whose last attempt failed (or known slow, $2) after the
// others, then the oldest due first ($5 of them; $3 left out, and with $4 false those whose last attempt
// failed too); and each one's oldest due deliveries ($6): one probe of the (webhook_id,
// next_attempt_at) index per enabled webhook, whatever the backlog of the others.
const DUE_BY_WEBHOOK = `WITH hooks AS (
  SELECT w.id, w.last_attempt_failed, (w.last_attempt_failed IS TRUE OR w.id = ANY ($2::bigint[])) AS suspect, first.at
  FROM webhooks w CROSS JOIN LATERAL (
    SELECT d.next_attempt_at AS at FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE_NOW} ORDER BY d.next_attempt_at LIMIT 1) first
  WHERE w.status = ${WebhookStatus.enabled} AND w.id <> ALL ($3::bigint[]) AND ($4::boolean OR w.last_attempt_failed IS NOT TRUE)
  ORDER BY suspect, first.at LIMIT $5)
SELECT d.seq, h.id, d.next_attempt_at, h.last_attempt_failed FROM hooks h CROSS JOIN LATERAL (
  SELECT d.seq, d.next_attempt_at FROM webhook_deliveries d WHERE d.webhook_id = h.id AND ${DUE_NOW} ORDER BY d.next_attempt_at LIMIT $6) d`;
// SKIP LOCKED: a row another node is claiming is passed over, never waited for; a row claimed and
// committed since it was read fails the lease condition, which FOR UPDATE checks again on its newest version.
const TAKE = `UPDATE webhook_deliveries d SET claimed_until = $1, claim_token = $2 FROM webhooks w
WHERE d.seq IN (SELECT d.seq FROM webhook_deliveries d WHERE d.seq = ANY ($3::bigint[]) AND ${DUE_NOW.replaceAll('$1', '$4')} FOR UPDATE SKIP LOCKED)
  AND w.id = d.webhook_id AND w.status = ${WebhookStatus.enabled}
RETURNING ${CLAIM_COLUMNS.join(', ')}`;

// The first in the due index that no lease holds, and whether any webhook is enabled.
const NEXT_DUE =
  'SELECT (SELECT next_attempt_at FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= $1) ORDER BY next_attempt_at LIMIT 1), ' +
  `EXISTS (SELECT 1 FROM webhooks WHERE status = ${WebhookStatus.enabled})`;

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

// Retention's steps (src/webhooks/retention.ts), each bounded by its LIMIT; SKIP LOCKED: rows another
// node's step holds are left to it.
const REMOVE_OF_DELETED = `DELETE FROM webhook_deliveries WHERE seq IN (
  SELECT d.seq FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id WHERE w.deleted LIMIT $1 FOR UPDATE OF d SKIP LOCKED)`;
const DROP_DELETED = 'DELETE FROM webhooks w WHERE deleted AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id)';
const FAIL_EXPIRED = `UPDATE webhook_deliveries SET status = ${DeliveryStatus.failed}, next_attempt_at = NULL WHERE seq IN (
  SELECT d.seq FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id
  WHERE w.status = ${WebhookStatus.disabled} AND d.status = ${DeliveryStatus.pending} AND d.event_created_at < $1 LIMIT $2 FOR UPDATE OF d SKIP LOCKED)`;
const DELETE_EXPIRED = `DELETE FROM webhook_deliveries WHERE seq IN (
  SELECT seq FROM webhook_deliveries WHERE status <> ${DeliveryStatus.pending} AND event_created_at < $1 ORDER BY event_created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

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
    async claim(request, pick) {
      const { now } = request;
      const due = await db.rows(DUE_BY_WEBHOOK, [now, request.slowWebhooks, request.excludeWebhooks, request.withFailing, request.webhooks, request.perWebhook]);
      const picked = pick(due.map(dueFromRow));
      if (picked.length === 0) return [];
      const rows = await db.rows(TAKE, [request.leaseUntil, request.claimToken, picked.map((delivery) => delivery.seq), now]);
      return rows.map((row) => claimedFromRow(row, now, request.claimToken));
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
      if (row === undefined) return;
      await db.run('UPDATE webhooks SET last_attempt_failed = $1 WHERE id = $2 AND last_attempt_failed IS DISTINCT FROM $1', [
        attempt.status !== DeliveryStatus.delivered, row[0],
      ]);
      if (!attempt.disableWebhook) return;
      await db.run(
        `UPDATE webhooks SET status = ${WebhookStatus.disabled}, version = version + 1, updated_at = $1 WHERE id = $2 AND status = ${WebhookStatus.enabled}`,
        [new Date(attempt.attemptedAt).toISOString(), row[0]],
      );
      await db.run('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = $1 AND status = 1', [row[0]]);
    },
    async nextDue(now) {
      const [row] = await db.rows(NEXT_DUE, [now]);
      return { at: numberOrNull(row?.[0]), anyEnabled: row?.[1] === true };
    },
    async removeOfDeleted(maxRows) {
      const removed = await db.run(REMOVE_OF_DELETED, [maxRows]);
      if (removed < maxRows) await db.run(DROP_DELETED);
      return removed;
    },
    failExpired: (maxRows, keptSince) => db.run(FAIL_EXPIRED, [keptSince, maxRows]),
    deleteExpired: (maxRows, keptSince) => db.run(DELETE_EXPIRED, [keptSince, maxRows]),
    async oldestPending() {
      const [row] = await db.rows('SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL');
      return typeof row?.[0] === 'string' ? Date.parse(row[0]) : null;
    },
  };
}

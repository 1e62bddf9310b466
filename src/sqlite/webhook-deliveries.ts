import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { type ClaimedDelivery, type Delivery, WebhookStatus } from '../webhooks/model.ts';
import type { DeliveryRepository } from '../webhooks/repository.ts';
import { candidatesFor, claimedFromRow, DELIVERY_COLUMNS, deliveryFromRow, pickFairly } from '../webhooks/rows.ts';

const COLUMNS = DELIVERY_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

// What a claim reads: the delivery, its copy of the event, and where and with what to send it.
const CLAIM_COLUMNS =
  'd.seq, d.webhook_id, d.event_id, d.event_type, d.event_created_at, d.event_data, d.round_attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until';


/** A DeliveryRepository on node:sqlite; statements are prepared once. */
export function createSqliteDeliveryRepository(db: DatabaseSync): DeliveryRepository {
  const page = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`);
  const pageOfStatus = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND status = ? AND seq < ? ORDER BY seq DESC LIMIT ?`);
  const byEvent = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?`);
  const restart = db.prepare('UPDATE webhook_deliveries SET status = 1, round_attempts = 0, next_attempt_at = ?, claimed_until = NULL, claim_token = NULL WHERE seq = ?');
  const pause = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 1');
  const resume = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 1 AND next_attempt_at IS NULL');
  // Only the keys first: most candidates are not picked, and their copies of the events are not read.
  const candidates = db.prepare(
    `SELECT d.seq, d.webhook_id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.status = 1 AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?) AND w.status = ${WebhookStatus.enabled}
       AND d.webhook_id NOT IN (SELECT value FROM json_each(?))
     ORDER BY d.next_attempt_at LIMIT ?`,
  );
  const claimed = db.prepare(`SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.seq = ?`);
  const take = db.prepare('UPDATE webhook_deliveries SET claimed_until = ?, claim_token = ? WHERE seq = ?');
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
  const pauseOfDelivery = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE status = 1 AND webhook_id = (SELECT webhook_id FROM webhook_deliveries WHERE seq = ?)');
  const nextDue = db.prepare('SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= ?)');
  const oldest = db.prepare('SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL');
  for (const read of [page, pageOfStatus, byEvent, candidates, claimed, nextDue, oldest]) read.setReturnArrays(true);
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
    async claim(request) {
      const rows = candidates.all(request.now, request.now, JSON.stringify(request.excludeWebhooks), candidatesFor(request)) as unknown as Row[];
      const picked = pickFairly(rows, (row) => Number(row[1]), request.limit, request.perWebhook);
      return picked.map((row) => {
        take.run(request.leaseUntil, request.claimToken, row[0] as number);
        return claimedFromRow(claimed.get(row[0] as number) as unknown as Row, request.now, request.claimToken);
      });
    },
    async record(attempt) {
      const { changes } = record.run(
        attempt.status, attempt.attemptedAt, attempt.responseStatus, attempt.nextAttemptAt, attempt.seq, attempt.claimToken,
      );
      if (changes === 0 || !attempt.disableWebhook) return;
      disable.run(new Date(attempt.attemptedAt).toISOString(), attempt.seq);
      pauseOfDelivery.run(attempt.seq);
    },
    async nextDue(now) {
      const row = nextDue.get(now) as Row | undefined;
      return row?.[0] === null || row?.[0] === undefined ? null : Number(row[0]);
    },
    async oldestPending() {
      const row = oldest.get() as Row | undefined;
      return typeof row?.[0] === 'string' ? Date.parse(row[0]) : null;
    },
  };
}

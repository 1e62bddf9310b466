import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { type ClaimedDelivery, type Delivery, DeliveryStatus, type DueDelivery, WebhookStatus } from '../webhooks/model.ts';
import type { DeliveryRepository, DueQuery } from '../webhooks/repository.ts';
import { claimedFromRow, DELIVERY_COLUMNS, deliveryFromRow, dueFromRow } from '../webhooks/rows.ts';

const COLUMNS = DELIVERY_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

// What a claim reads: the delivery, its copy of the event, where and with what to send it, and in which version.
const CLAIM_COLUMNS =
  'd.seq, d.webhook_id, d.event_id, d.event_type, d.event_created_at, d.event_data, d.round_attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until, d.api_version';
// A delivery a claim may take at a time (bound twice): pending, due, and held by no unexpired lease.
const DUE_NOW = 'd.status = 1 AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)';

/**
 * Of the webhooks with something due (id, whether the last attempt failed, oldest due), the
 * `query.webhooks` a claim reads: the left-out dropped, those that answer first (not failed, not known
 * slow), then the oldest due.
 */
function dueWebhooksOf(rows: readonly Row[], query: DueQuery): Row[] {
  const excluded = new Set(query.excludeWebhooks);
  const slow = new Set(query.slowWebhooks);
  const suspect = ([id, failed]: Row): number => (failed === 1 || slow.has(Number(id)) ? 1 : 0);
  return rows
    .filter(([id]) => !excluded.has(Number(id)))
    .sort((a, b) => suspect(a) - suspect(b) || Number(a[2]) - Number(b[2]))
    .slice(0, query.webhooks);
}

/** A DeliveryRepository on node:sqlite; statements are prepared once. */
export function createSqliteDeliveryRepository(db: DatabaseSync): DeliveryRepository {
  const page = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`);
  const pageOfStatus = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND status = ? AND seq < ? ORDER BY seq DESC LIMIT ?`);
  const byEvent = db.prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?`);
  const restart = db.prepare('UPDATE webhook_deliveries SET status = 1, round_attempts = 0, next_attempt_at = ?, claimed_until = NULL, claim_token = NULL WHERE seq = ?');
  const pause = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND status = 1');
  const resume = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND status = 1 AND next_attempt_at IS NULL');
  // The enabled webhooks with something due, each with its oldest due time: one probe of the
  // (webhook_id, next_attempt_at) index per enabled webhook (twice for those with something due: the
  // WHERE repeats the alias's subquery). No ORDER BY, CTE or json_each list: each makes SQLite build a
  // sorter or a temporary table, 15 to 35 µs a read even for one row, several times the probes
  // themselves; dueWebhooksOf orders and cuts the rows instead.
  const dueWebhooks = db.prepare(
    `SELECT w.id, w.last_attempt_failed,
       (SELECT d.next_attempt_at FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE_NOW} ORDER BY d.next_attempt_at LIMIT 1) AS due
     FROM webhooks w
     WHERE w.status = ${WebhookStatus.enabled} AND (? OR w.last_attempt_failed IS NOT 1) AND due IS NOT NULL`,
  );
  const dueOfWebhook = db.prepare(`SELECT d.seq, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d WHERE d.webhook_id = ? AND ${DUE_NOW} ORDER BY d.next_attempt_at LIMIT ?`);
  const take = db.prepare(
    `UPDATE webhook_deliveries AS d SET claimed_until = ?, claim_token = ?
     WHERE d.seq = ? AND ${DUE_NOW} AND (SELECT status FROM webhooks WHERE id = d.webhook_id) = ${WebhookStatus.enabled}`,
  );
  const claimed = db.prepare(`SELECT ${CLAIM_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.seq = ?`);
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
  // The first in the due index that no lease holds: the scan stops there, past the leased ones only.
  const nextDue = db.prepare(
    'SELECT next_attempt_at FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_attempt_at LIMIT 1',
  );
  const oldest = db.prepare('SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 1 AND next_attempt_at IS NOT NULL');
  // Retention's steps (src/webhooks/retention.ts), each bounded by its LIMIT; the webhooks (few) are
  // read first, then their deliveries by the (webhook_id, status, seq) index, never a scan of the log.
  const removeOfDeleted = db.prepare(
    'DELETE FROM webhook_deliveries WHERE seq IN (SELECT seq FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE deleted = 1) LIMIT ?)',
  );
  const dropDeleted = db.prepare('DELETE FROM webhooks WHERE deleted = 1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = webhooks.id)');
  const failExpired = db.prepare(
    `UPDATE webhook_deliveries SET status = ${DeliveryStatus.failed}, next_attempt_at = NULL WHERE seq IN (
       SELECT seq FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE status = ${WebhookStatus.disabled})
         AND status = ${DeliveryStatus.pending} AND event_created_at < ? LIMIT ?)`,
  );
  const deleteExpired = db.prepare(
    `DELETE FROM webhook_deliveries WHERE seq IN (
       SELECT seq FROM webhook_deliveries WHERE status <> ${DeliveryStatus.pending} AND event_created_at < ? ORDER BY event_created_at LIMIT ?)`,
  );
  for (const read of [page, pageOfStatus, byEvent, dueWebhooks, dueOfWebhook, claimed, nextDue, oldest]) read.setReturnArrays(true);
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
    async dueByWebhook(query) {
      const { now } = query;
      const rows = dueWebhooks.all(now, now, query.withFailing ? 1 : 0) as unknown as Row[];
      return dueWebhooksOf(rows, query).flatMap(([webhookId, failed]): DueDelivery[] =>
        (dueOfWebhook.all(webhookId as number, now, now, query.perWebhook) as unknown as Row[]).map((row) => dueFromRow([...row, failed])),
      );
    },
    async take(request) {
      const taken: ClaimedDelivery[] = [];
      for (const seq of request.seqs) {
        if (take.run(request.leaseUntil, request.claimToken, seq, request.now, request.now).changes === 0) continue;
        taken.push(claimedFromRow(claimed.get(seq) as unknown as Row, request.now, request.claimToken));
      }
      return taken;
    },
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
      return row?.[0] === null || row?.[0] === undefined ? null : Number(row[0]);
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

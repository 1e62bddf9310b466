import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { type ClaimedDelivery, type DueDelivery, WebhookStatus } from '../webhooks/model.ts';
import type { DeliveryRepository, DueQuery } from '../webhooks/repository.ts';
import { CLAIM_COLUMNS, claimedFromRow } from '../webhooks/rows.ts';
import { BOUND_LIMIT } from './limit.ts';

type Row = readonly SQLOutputValue[];

// A delivery a claim may take at a time (bound twice): pending, due, and held by no unexpired lease.
const DUE_NOW = 'd.status = 1 AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)';

// A claim's columns come from two reads, the webhook's and the delivery's: each read selects its part.
const DELIVERY_PART = CLAIM_COLUMNS.filter((column) => column.startsWith('d.'));
const WEBHOOK_PART = CLAIM_COLUMNS.filter((column) => column.startsWith('w.'));
const FAILED = WEBHOOK_PART.indexOf('w.last_attempt_failed');
const PARTS = CLAIM_COLUMNS.map((column) => (column.startsWith('d.') ? { delivery: true, at: DELIVERY_PART.indexOf(column) } : { delivery: false, at: WEBHOOK_PART.indexOf(column) }));

/** A webhook a claim read: its id, its oldest due delivery's time, and its part of the claim's columns. */
interface DueWebhook {
  id: number;
  dueAt: number;
  part: Row;
}

/**
 * Of the webhooks with something due, the `query.webhooks` a claim reads: the left-out dropped, those
 * that answer first (last attempt not failed, not known slow), then the oldest due.
 */
function dueWebhooksOf(hooks: readonly DueWebhook[], query: DueQuery): DueWebhook[] {
  const excluded = new Set(query.excludeWebhooks);
  const slow = new Set(query.slowWebhooks);
  const suspect = (hook: DueWebhook): number => (hook.part[FAILED] === 1 || slow.has(hook.id) ? 1 : 0);
  return hooks
    .filter((hook) => !excluded.has(hook.id))
    .sort((a, b) => suspect(a) - suspect(b) || a.dueAt - b.dueAt)
    .slice(0, query.webhooks);
}

/**
 * A claim on node:sqlite (DeliveryRepository.claim), in the write transaction that holds the database's
 * write lock, so what it read is what it takes: the webhooks with something due, the oldest due
 * deliveries of those chosen, then one UPDATE per delivery picked. The reads select everything an
 * attempt needs, so nothing is read again once taken.
 */
export function sqliteClaim(db: DatabaseSync): DeliveryRepository['claim'] {
  // The enabled webhooks with something due, each with its oldest due time: one probe of the
  // (webhook_id, next_attempt_at) index per enabled webhook (twice for those with something due: the
  // WHERE repeats the alias's subquery). No ORDER BY, CTE or json_each list: each makes SQLite build a
  // sorter or a temporary table, 15 to 35 µs a read even for one row, several times the probes
  // themselves; dueWebhooksOf orders and cuts the rows instead.
  const dueWebhooks = db.prepare(
    `SELECT w.id, (SELECT d.next_attempt_at FROM webhook_deliveries d WHERE d.webhook_id = w.id AND ${DUE_NOW} ORDER BY d.next_attempt_at LIMIT 1) AS due,
       ${WEBHOOK_PART.join(', ')}
     FROM webhooks w
     WHERE w.status = ${WebhookStatus.enabled} AND (? OR w.last_attempt_failed IS NOT 1) AND due IS NOT NULL`,
  );
  const dueOfWebhook = db.prepare(
    `SELECT ${DELIVERY_PART.join(', ')}, d.next_attempt_at FROM webhook_deliveries d WHERE d.webhook_id = ? AND ${DUE_NOW} ORDER BY d.next_attempt_at ${BOUND_LIMIT}`,
  );
  const take = db.prepare(
    `UPDATE webhook_deliveries AS d SET claimed_until = ?, claim_token = ?
     WHERE d.seq = ? AND ${DUE_NOW} AND (SELECT status FROM webhooks WHERE id = d.webhook_id) = ${WebhookStatus.enabled}`,
  );
  for (const read of [dueWebhooks, dueOfWebhook]) read.setReturnArrays(true);
  return async (request, pick) => {
    const { now } = request;
    const rows = dueWebhooks.all(now, now, request.withFailing ? 1 : 0) as unknown as Row[];
    const hooks = dueWebhooksOf(rows.map(([id, due, ...part]) => ({ id: Number(id), dueAt: Number(due), part })), request);
    const read = new Map<number, { delivery: Row; webhook: Row }>();
    const due: DueDelivery[] = [];
    for (const hook of hooks) {
      const failed = hook.part[FAILED] === null ? null : hook.part[FAILED] === 1;
      const wanted = Math.min(request.perWebhook, request.roomOf?.(hook.id, failed) ?? request.perWebhook);
      if (wanted === 0) continue;
      for (const delivery of dueOfWebhook.all(hook.id, now, now, wanted) as unknown as Row[]) {
        const seq = Number(delivery[0]);
        read.set(seq, { delivery, webhook: hook.part });
        due.push({ seq, webhookId: hook.id, dueAt: Number(delivery[DELIVERY_PART.length]), lastAttemptFailed: failed });
      }
    }
    const claimed: ClaimedDelivery[] = [];
    for (const { seq } of pick(due)) {
      const columns = read.get(seq);
      // Taken only if read just now and still due (the same one twice is leased the first time).
      if (columns === undefined || take.run(request.leaseUntil, request.claimToken, seq, now, now).changes === 0) continue;
      claimed.push(claimedFromRow(PARTS.map(({ delivery, at }) => (delivery ? columns.delivery[at] : columns.webhook[at])), now, request.claimToken));
    }
    return claimed;
  };
}

import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { type Webhook, WebhookStatus } from '../webhooks/model.ts';
import type { WebhookRepository } from '../webhooks/repository.ts';
import { eventMaskOf, WEBHOOK_COLUMNS, webhookFromRow } from '../webhooks/rows.ts';
import type { WebhookFanOut } from './webhook-fan-out.ts';
import { BOUND_LIMIT } from './limit.ts';

const COLUMNS = WEBHOOK_COLUMNS.join(', ');
type Row = readonly SQLOutputValue[];

/** A WebhookRepository on node:sqlite; statements are prepared once. */
export function createSqliteWebhookRepository(db: DatabaseSync, deliveries?: WebhookFanOut): WebhookRepository {
  const insert = db.prepare(
    `INSERT INTO webhooks (url, event_mask, status, secret, previous_secret, previous_secret_until, created_at, updated_at, api_version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare(
    'UPDATE webhooks SET url = ?, event_mask = ?, status = ?, secret = ?, previous_secret = ?, previous_secret_until = ?, updated_at = ?, version = ?, api_version = ? WHERE id = ?',
  );
  // Deleted at once, disabled with it (nothing is claimed or fanned out to it); retention removes its log, then the row.
  const remove = db.prepare(`UPDATE webhooks SET deleted = 1, status = ${WebhookStatus.disabled}, version = version + 1 WHERE id = ? AND deleted = 0`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE id = ? AND deleted = 0`);
  const page = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE id < ? AND deleted = 0 ORDER BY id DESC ${BOUND_LIMIT}`);
  byId.setReturnArrays(true);
  page.setReturnArrays(true);
  const findById = async (id: number): Promise<Webhook | undefined> => {
    const row = byId.get(id) as Row | undefined;
    return row === undefined ? undefined : webhookFromRow(row);
  };
  return {
    async insert(webhook) {
      deliveries?.webhookWritten();
      const result = insert.run(
        webhook.url, eventMaskOf(webhook.eventTypes), webhook.status, webhook.secret,
        webhook.previousSecret, webhook.previousSecretUntil, webhook.createdAt, webhook.updatedAt, webhook.apiVersion,
      );
      return { id: Number(result.lastInsertRowid), ...webhook, version: 1 };
    },
    findById,
    // A write transaction here is BEGIN IMMEDIATE: it already holds the database's write lock.
    findForUpdate: findById,
    async update(webhook) {
      deliveries?.webhookWritten();
      update.run(
        webhook.url, eventMaskOf(webhook.eventTypes), webhook.status, webhook.secret, webhook.previousSecret,
        webhook.previousSecretUntil, webhook.updatedAt, webhook.version, webhook.apiVersion, webhook.id,
      );
    },
    async remove(id) {
      return remove.run(id).changes > 0;
    },
    async listBefore(beforeId, limit) {
      const rows = page.all(beforeId ?? Number.MAX_SAFE_INTEGER, limit) as unknown as Row[];
      return rows.map(webhookFromRow);
    },
  };
}

import type { SqlRunner } from './client.ts';
import { asNumber, isoText } from './sql.ts';
import { type Webhook, WebhookStatus } from '../webhooks/model.ts';
import type { WebhookRepository } from '../webhooks/repository.ts';
import { eventMaskOf, WEBHOOK_COLUMNS, webhookFromRow } from '../webhooks/rows.ts';

// The times are formatted by the server into the text SQLite stores (see isoText).
const COLUMNS = WEBHOOK_COLUMNS.map((column) => (column === 'created_at' || column === 'updated_at' ? isoText(column) : column)).join(', ');

/** A WebhookRepository on PostgreSQL, running its statements on `db` (the pool, or one transaction). */
export function createPostgresWebhookRepository(db: SqlRunner): WebhookRepository {
  const one = async (sql: string, id: number): Promise<Webhook | undefined> => {
    const [row] = await db.rows(sql, [id]);
    return row === undefined ? undefined : webhookFromRow(row);
  };
  return {
    async insert(webhook) {
      const [row] = await db.rows(
        `INSERT INTO webhooks (url, event_mask, status, secret, previous_secret, previous_secret_until, created_at, updated_at, api_version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
        [
          webhook.url, eventMaskOf(webhook.eventTypes), webhook.status, webhook.secret, webhook.previousSecret, webhook.previousSecretUntil,
          webhook.createdAt, webhook.updatedAt, webhook.apiVersion,
        ],
      );
      return { id: asNumber(row?.[0]), ...webhook, version: 1 };
    },
    findById: (id) => one(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND NOT deleted`, id),
    // The row lock holds until the transaction ends, so an If-Match check and its write are one step.
    findForUpdate: (id) => one(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND NOT deleted FOR UPDATE`, id),
    async update(webhook) {
      await db.run(
        `UPDATE webhooks SET url = $1, event_mask = $2, status = $3, secret = $4, previous_secret = $5, previous_secret_until = $6,
           updated_at = $7, version = $8, api_version = $9 WHERE id = $10`,
        [
          webhook.url, eventMaskOf(webhook.eventTypes), webhook.status, webhook.secret, webhook.previousSecret, webhook.previousSecretUntil,
          webhook.updatedAt, webhook.version, webhook.apiVersion, webhook.id,
        ],
      );
    },
    // Deleted at once, disabled with it (nothing is claimed or fanned out to it); retention removes its log, then the row.
    async remove(id) {
      return (await db.run(`UPDATE webhooks SET deleted = true, status = ${WebhookStatus.disabled}, version = version + 1 WHERE id = $1 AND NOT deleted`, [id])) > 0;
    },
    async listBefore(beforeId, limit) {
      const rows = await db.rows(`SELECT ${COLUMNS} FROM webhooks WHERE id < $1 AND NOT deleted ORDER BY id DESC LIMIT $2`, [beforeId ?? Number.MAX_SAFE_INTEGER, limit]);
      return rows.map(webhookFromRow);
    },
  };
}

import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * The webhook deliveries of each event (docs/webhooks.md, Delivery guarantees), made in the event's
 * own savepoint: one per enabled webhook that takes its type, in the webhook's API version of that
 * moment, due at once. A statement the event recorder runs, not a trigger on the events table: a
 * trigger's program cost every event more than the event's own insert, webhooks or not.
 *
 * Skipped in a write transaction that has read, under its write lock, that no webhook is enabled:
 * until it ends, only its own writes could enable one, and each webhook write here says so. Outside
 * such a transaction (or never told one began) every event is fanned out. A transaction that made
 * deliveries calls `onMade` as it ends (after its COMMIT, or a ROLLBACK: a wake-up for nothing), so
 * the deliverers of this process look at once, and only then.
 */
export class WebhookFanOut {
  readonly #fanOut: StatementSync;
  readonly #anyEnabled: StatementSync;
  readonly #onMade: () => void;
  #noneEnabled = false;
  #made = false;

  constructor(db: DatabaseSync, onMade: () => void = () => {}) {
    this.#onMade = onMade;
    this.#fanOut = db.prepare(
      'INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at, api_version) ' +
        "SELECT w.id, CAST(e.position AS TEXT), e.type, e.created_at, e.data, CAST(unixepoch('subsec') * 1000 AS INTEGER), w.api_version " +
        'FROM events e CROSS JOIN webhooks w ' +
        'WHERE e.position = ? AND w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> e.type) & 1 = 1)',
    );
    this.#anyEnabled = db.prepare('SELECT 1 FROM webhooks WHERE status = 1 LIMIT 1');
  }

  /** A write transaction began and holds the write lock: no other connection can enable a webhook until it ends. */
  began(): void {
    this.#noneEnabled = this.#anyEnabled.get() === undefined;
  }

  /** The transaction ended: from now on another connection may enable one. */
  ended(): void {
    this.#noneEnabled = false;
    if (!this.#made) return;
    this.#made = false;
    this.#onMade();
  }

  /** A webhook was written on this connection: it may be enabled now. */
  webhookWritten(): void {
    this.#noneEnabled = false;
  }

  /** Makes the deliveries of the event at `position`. */
  fanOut(position: number | bigint): void {
    if (!this.#noneEnabled && this.#fanOut.run(position).changes > 0) this.#made = true;
  }
}

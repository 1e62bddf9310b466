import type { DatabaseSync } from 'node:sqlite';

/**
 * The webhook deliveries of one event (docs/webhooks.md, Deliveries), made in the event's own
 * savepoint: one per enabled webhook that takes its type, in the webhook's API version of that
 * moment, due at once. A statement the event recorder runs, not a trigger on the events table: a
 * trigger's program cost a create more than the event's own insert, webhooks or not (bench/RESULTS.md,
 * Where a create's CPU goes).
 */
export function webhookFanOut(db: DatabaseSync): (position: number | bigint) => void {
  const fanOut = db.prepare(
    'INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, event_data, next_attempt_at, api_version) ' +
      "SELECT w.id, CAST(e.position AS TEXT), e.type, e.created_at, e.data, CAST(unixepoch('subsec') * 1000 AS INTEGER), w.api_version " +
      'FROM events e CROSS JOIN webhooks w ' +
      'WHERE e.position = ? AND w.status = 1 AND (w.event_mask IS NULL OR (w.event_mask >> e.type) & 1 = 1)',
  );
  return (position) => void fanOut.run(position);
}

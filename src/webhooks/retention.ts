import type { Storage } from '../db/storage.ts';
import { type Sweep, type SweepOptions, startSweep } from '../shared/sweep.ts';

/**
 * Keeps the delivery log as long as the events (SVC_EVENTS_RETENTION, `retentionMs`), in the same
 * bounded steps as event retention (startSweep): the logs of deleted webhooks go first, then pending
 * deliveries of disabled webhooks whose event expired become failed, then delivered and failed
 * deliveries whose event expired are deleted, with their copy of the event. A pending delivery of an
 * enabled webhook is kept until it ends, whatever its event's age: it sends the same bytes until then.
 * Expiry is judged by the event's time as the delivery keeps it, never by the events table. `wake()`
 * starts a sweep at once (a webhook was deleted in this process).
 */
export function startDeliveryRetention(storage: Storage, retentionMs: number, options: SweepOptions = {}): Sweep {
  const keptSince = (): string => new Date(Date.now() - retentionMs).toISOString();
  return startSweep(
    [
      (maxRows) => storage.transaction((tx) => tx.webhookDeliveries.removeOfDeleted(maxRows)),
      (maxRows) => storage.transaction((tx) => tx.webhookDeliveries.failExpired(maxRows, keptSince())),
      (maxRows) => storage.transaction((tx) => tx.webhookDeliveries.deleteExpired(maxRows, keptSince())),
    ],
    'the webhooks\' delivery log could not be trimmed; the next sweep tries again',
    options,
  );
}

// Starting webhook deliveries beside an app made with createApp alone (docs/webhooks.md, Embedding);
// startServer and bin/serve.js start them by themselves.
import type { Config } from './config.ts';
import { createStorage, type Database } from './db/engine.ts';
import { eventCatalogue } from './events/catalogue.ts';
import { createLogger, type Logger } from './log/logger.ts';
import { callbackMetric } from './metrics/registry.ts';
import { EnumCounter } from './metrics/instruments.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';
import { RESOURCES, VERSIONS } from './registry.ts';
import { type ApiVersions, buildVersions } from './versions/api-versions.ts';
import type { Resource } from './resources/resource.ts';
import { ATTEMPT_OUTCOMES, type AttemptOutcome, startDeliverer } from './webhooks/deliverer.ts';
import { startDeliveryRetention } from './webhooks/retention.ts';
import { onCommits, onRemoved, onWrites } from './webhooks/wake.ts';

/** What startWebhookDeliveries needs: the migrated database the app serves, and its configuration. */
export interface WebhookDeliveriesOptions {
  db: Database;
  config: Config;
  logger?: Logger;
  /** The app's metrics, to count attempts and report the oldest pending delivery in (null: nothing). */
  metrics?: ServiceMetrics | null;
  /** The resources the app serves (its `resources` option): how their events are presented. src/registry.ts's by default. */
  resources?: readonly Resource[];
  /**
   * The API versions the app serves (its `versions`): what each delivery is made in. By default src/registry.ts's,
   * with the sunsets of `config`.
   */
  versions?: ApiVersions;
}

/** Running deliveries. */
export interface WebhookDeliveries {
  /** Stops claiming; resolves once attempts in flight have ended, or after `graceMs` leaves them to their lease. */
  stop(graceMs?: number): Promise<void>;
}

// The two families of the deliveries, registered afresh (metrics reused by a restart keep one of each).
function countIn(metrics: ServiceMetrics, oldestSeconds: () => number): (outcome: AttemptOutcome) => void {
  const { registry } = metrics;
  registry.unregister('webhook_deliveries_total');
  registry.unregister('webhook_oldest_pending_seconds');
  const attempts = registry.register(
    new EnumCounter('webhook_deliveries_total', 'Webhook delivery attempts by how they ended.', 'outcome', ATTEMPT_OUTCOMES),
  );
  registry.register(
    callbackMetric({
      type: 'gauge', name: 'webhook_oldest_pending_seconds', merge: 'max',
      help: 'Age of the event of the oldest webhook delivery still planned (0 when none).', read: oldestSeconds,
    }),
  );
  return (outcome) => attempts.inc(outcome);
}

/**
 * Starts delivering webhooks from `db` in this process: claims due deliveries (each attempt by one
 * process, whatever the number of processes and machines), sends and records them; and keeps the
 * delivery log (retention, deleted webhooks' logs). Every process that serves the API may run it.
 */
export function startWebhookDeliveries(options: WebhookDeliveriesOptions): WebhookDeliveries {
  const { db, config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const resources = options.resources ?? RESOURCES;
  let count: ((outcome: AttemptOutcome) => void) | undefined;
  const storage = createStorage(db);
  const deliverer = startDeliverer({
    storage,
    catalogue: eventCatalogue(resources),
    versions: options.versions ?? buildVersions(VERSIONS, resources, { at: config.versions.sunsets, announcedAt: config.versions.sunsetsAnnouncedAt }),
    settings: config.webhooks,
    logger,
    onAttempt: (outcome) => count?.(outcome),
  });
  if (options.metrics) count = countIn(options.metrics, () => deliverer.oldestPendingSeconds());
  // The log follows retention, and a deleted webhook's log goes in steps: started here, so every
  // process that delivers keeps it (an app that sends nothing makes no log to keep).
  const retention = startDeliveryRetention(storage, config.events.retentionMs, { logger });
  const stopWaking = onWrites(db, deliverer.wake);
  const stopCommits = onCommits(db, deliverer.committed);
  const stopRemoving = onRemoved(db, retention.wake);
  return {
    async stop(graceMs) {
      stopWaking();
      stopCommits();
      stopRemoving();
      await Promise.all([deliverer.stop(graceMs), retention.stop()]);
    },
  };
}

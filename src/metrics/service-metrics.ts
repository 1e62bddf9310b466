import { eventLoopLag } from './event-loop.ts';
import { HttpMetrics } from './http-metrics.ts';
import { REFUSAL_REASONS, type RefusalReason } from '../callers/caller.ts';
import { KEY_LOOKUP_RESULTS, type KeyLookupResult } from '../keys/key-check.ts';
import { KEY_ID_REFRESH_RESULTS, type KeyIdRefreshResult } from '../keys/key-ids.ts';
import { Counter, EnumCounter, Histogram } from './instruments.ts';
import { processCollectors } from './process-metrics.ts';
import { Registry } from './registry.ts';

/** Writes per group commit: powers of two up to the batcher's cap of 256. */
export const COMMIT_BATCH_BOUNDS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** A registry with the process figures and the event-loop lag, and a close() that stops the lag monitor. */
export interface ProcessRegistry {
  readonly registry: Registry;
  close(): void;
}

// The process-wide families every process reports; returns what stops the lag monitor.
function addProcessFamilies(registry: Registry): () => void {
  for (const collector of processCollectors()) registry.register(collector);
  const lag = registry.register(eventLoopLag());
  return () => lag.close();
}

/** The process figures alone: what the primary of SVC_WORKERS > 1 reports of itself. */
export function createProcessRegistry(): ProcessRegistry {
  const registry = new Registry();
  return { registry, close: addProcessFamilies(registry) };
}

/** Everything the service counts, handed to createApp at wiring; `text()` is one scrape. */
export interface ServiceMetrics extends ProcessRegistry {
  readonly http: HttpMetrics;
  /** Writes committed per transaction (SQLite group commit). */
  readonly commitBatchSize: Histogram;
  readonly idempotentReplays: Counter;
  readonly rateLimited: Counter;
  /** Requests refused for their credentials (401) or scope (403), by a fixed set of reasons; never by key. */
  readonly callersRefused: EnumCounter<RefusalReason>;
  /** Database reads of API keys by the key check (SVC_AUTH=keys), by result: what a flood of random keys costs. */
  readonly apiKeyLookups: EnumCounter<KeyLookupResult>;
  /** Reads of the ids of new keys by the key check (SVC_AUTH=keys), by result: the rest of what a flood costs. */
  readonly apiKeyIdRefreshes: EnumCounter<KeyIdRefreshResult>;
  /** The current figures in the Prometheus text format 0.0.4 (serve with METRICS_CONTENT_TYPE). */
  text(): string;
}

/**
 * Creates the service's metrics. Add a family measured at scrape time with
 * `metrics.registry.register(callbackMetric({ … }))`, e.g. a connection pool's state.
 */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const http = new HttpMetrics();
  for (const collector of http.collectors()) registry.register(collector);
  const commitBatchSize = registry.register(
    new Histogram('db_commit_batch_size', 'Writes committed together in one transaction (group commit, SQLite).', COMMIT_BATCH_BOUNDS),
  );
  const idempotentReplays = registry.register(new Counter('idempotent_replays_total', 'POSTs answered with a stored response (Idempotent-Replayed: true).'));
  const rateLimited = registry.register(new Counter('rate_limited_total', 'Requests refused with 429 rate_limited.'));
  const callersRefused = registry.register(
    new EnumCounter('callers_refused_total', 'Requests refused for their credentials (401) or their scope (403), by reason.', 'reason', REFUSAL_REASONS),
  );
  const apiKeyLookups = registry.register(
    new EnumCounter('api_key_lookups_total', 'Database reads of API keys by the key check, by result (found, absent, failed).', 'result', KEY_LOOKUP_RESULTS),
  );
  const apiKeyIdRefreshes = registry.register(
    new EnumCounter('api_key_id_refreshes_total', 'Reads of the ids of keys made since the last one, by the key check, by result (done, failed).', 'result', KEY_ID_REFRESH_RESULTS),
  );
  const close = addProcessFamilies(registry);
  return { registry, close, http, commitBatchSize, idempotentReplays, rateLimited, callersRefused, apiKeyLookups, apiKeyIdRefreshes, text: () => registry.text() };
}

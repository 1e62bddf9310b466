import type { CommitWatch } from '../db/commit-watch.ts';
import type { EventCatalogue } from './catalogue.ts';
import type { EventRepository } from './repository.ts';
import type { Logger } from '../log/logger.ts';
import { STREAM_LIMITS, type StreamLimit } from '../http/stream-admission.ts';
import { throttled } from '../log/throttled.ts';
import { EnumCounter } from '../metrics/instruments.ts';
import { callbackMetric } from '../metrics/registry.ts';
import type { ServiceMetrics } from '../metrics/service-metrics.ts';
import { LiveFeed } from './live-feed.ts';

/** The live feed of a process, and what to call after each commit of this process (the engine's commit watch makes it wake the feeds). */
export interface LiveEvents {
  feed: LiveFeed;
  committed(): void;
}

/**
 * Wires the live streams of one app: one feed per process reading new events after each commit of
 * this process, each sign of a commit elsewhere (`commits`) and, on PostgreSQL, a slow poll.
 */
export function createLiveEvents(events: EventRepository, catalogue: EventCatalogue, commits: CommitWatch, logger: Logger, metrics: ServiceMetrics | null): LiveEvents {
  // The streams stay open through a database outage; a line every few seconds says why nothing comes.
  const readFailed = throttled<unknown>(5_000, (error, heldBack) => {
    logger.warn('live streams: new events could not be read; trying again', { reason: (error as Error).message, heldBack });
  });
  const feed = new LiveFeed({ events, catalogue, listen: (wake) => commits.listen(wake), onReadError: readFailed });
  if (metrics !== null) {
    // Metrics reused for another app in the same process report the newest one.
    metrics.registry.unregister('event_streams_open');
    metrics.registry.register(
      callbackMetric({ type: 'gauge', name: 'event_streams_open', help: 'Live event streams open (GET /api/events as text/event-stream).', merge: 'sum', read: () => feed.size }),
    );
  }
  // SQLite wakes this feed at once; on PostgreSQL an event is readable once the sequencer positioned it, and its notification wakes the feeds.
  return { feed, committed: () => commits.announce() };
}

/** Counts the streams refused for a limit (SVC_STREAMS_PER_CALLER: `caller`, SVC_MAX_STREAMS: `process`) in `event_streams_refused_total`. */
export function countStreamRefusals(metrics: ServiceMetrics): (limit: StreamLimit) => void {
  metrics.registry.unregister('event_streams_refused_total');
  const refused = metrics.registry.register(
    new EnumCounter('event_streams_refused_total', 'Live event streams refused before they started, by the limit they met (caller: 429, process: 503).', 'limit', STREAM_LIMITS),
  );
  return (limit) => refused.inc(limit);
}

import type { StreamedBody, StreamSink } from '../http/streamed-reply.ts';
import type { EventCatalogue } from './catalogue.ts';
import type { LiveFeed, Subscriber } from './live-feed.ts';
import type { EventType } from './model.ts';
import type { EventRepository } from './repository.ts';
import type { VersionView } from '../versions/api-versions.ts';
import { EVENT_STREAM_TYPE, eventMessage, KEEP_ALIVE } from './sse.ts';

/**
 * Where a stream starts: after an event (Last-Event-ID, `after`, or the newest when it opened), or
 * from the oldest kept (null: nothing was recorded, or kept, when it opened).
 */
export interface StreamStart {
  readonly after: string | null;
}

/** How often a quiet stream is checked for a keep-alive comment: one goes out at least every 10 s. */
export const KEEP_ALIVE_CHECK_MS = 5_000;

const PAGE = 200;

// The sink, remembering when it last wrote: a quiet stream gets a comment now and then.
function quietWatch(sink: StreamSink): { write(text: string): void; stop(): void } {
  let wroteAt = performance.now();
  const timer = setInterval(() => {
    if (performance.now() - wroteAt >= KEEP_ALIVE_CHECK_MS) write(KEEP_ALIVE);
  }, KEEP_ALIVE_CHECK_MS);
  function write(text: string): void {
    wroteAt = performance.now();
    sink.write(text);
  }
  return { write, stop: () => clearInterval(timer) };
}

// Reads from `after` with reads of its own until the live feed has read that far, then joins it: each
// read that comes back short is followed by a read of the feed begun after it, so the feed holds the
// stream's place (or stands on it) unless more than its memory of recent events came in between.
async function catchUp(feed: LiveFeed, events: EventRepository, after: string | null, subscriber: Subscriber, sink: StreamSink, write: (text: string) => void): Promise<void> {
  const { catalogue } = feed;
  let place = after;
  while (!sink.ended && !feed.joinAfter(place, subscriber)) {
    const read = await events.readAfter(place, PAGE, null);
    if (read.kind !== 'events') return sink.end();
    for (const event of read.events) if (subscriber.types === null || subscriber.types.has(event.type)) write(eventMessage(catalogue, event, subscriber.version));
    place = read.events.at(-1)?.id ?? place;
    if (read.events.length === PAGE) await sink.drained();
    else await feed.nextRead();
  }
}

/**
 * The body of a live stream: a comment at once (so the head goes through any proxy), then every event
 * after `start` of the wanted `types` (all when null), one message each, and a comment when quiet.
 */
export function eventStream(feed: LiveFeed, events: EventRepository, start: StreamStart, types: readonly EventType[] | null, version: VersionView): StreamedBody {
  return {
    contentType: EVENT_STREAM_TYPE,
    start(sink) {
      const quiet = quietWatch(sink);
      const subscriber: Subscriber = {
        types: types === null ? null : new Set(types),
        version,
        send: (messages: string) => quiet.write(messages),
        lost: () => sink.end(),
      };
      quiet.write(KEEP_ALIVE);
      // A stream that cannot be followed now (the database is down, its place expired) ends: its
      // client reconnects with its Last-Event-ID and misses nothing.
      void feed
        .use()
        .then(() => catchUp(feed, events, start.after, subscriber, sink, quiet.write))
        .catch(() => sink.end());
      return () => {
        quiet.stop();
        feed.release(subscriber);
      };
    },
  };
}

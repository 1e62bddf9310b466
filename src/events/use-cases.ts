import type { EventRead } from './model.ts';
import type { EventRepository } from './repository.ts';
import type { FeedQuery } from './validate.ts';

/** The rules of the event feed, independent of HTTP and of the database engine. */
export interface EventUseCases {
  /** A page of the feed, oldest first, after `query.after`; or why it cannot be read (malformed, unknown, expired). */
  feed(query: FeedQuery): Promise<EventRead>;
  /** The id of the newest visible event, or null: where a follower that wants only new events starts. */
  head(): Promise<string | null>;
}

/** The feed's use cases on `events`. */
export function createEventUseCases(events: EventRepository): EventUseCases {
  return {
    feed: (query) => events.readAfter(query.after, query.limit, query.types),
    head: () => events.head(),
  };
}

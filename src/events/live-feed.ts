import { setTimeout as sleep } from 'node:timers/promises';
import type { EventRead, EventType, StoredEvent } from './model.ts';
import type { EventRepository } from './repository.ts';
import type { EventCatalogue } from './catalogue.ts';
import { eventMessage } from './sse.ts';
import type { VersionView } from '../versions/api-versions.ts';

/** An event as every stream sends it: made into its message once per API version, whatever the number of streams. */
export interface LiveEvent {
  readonly id: string;
  readonly type: EventType;
  messageIn(version: VersionView): string;
}

/** One open stream as the live feed sees it: which types it wants and where its messages go. */
export interface Subscriber {
  readonly types: ReadonlySet<EventType> | null;
  /** The API version its messages are made in. */
  readonly version: VersionView;
  /** Takes the messages of one or more events, in order, as one text. */
  send(messages: string): void;
  /** The feed cannot go on from where this stream is (its place is past retention): end it. */
  lost(): void;
}

/** How the live feed reads and when it learns of new events. */
export interface LiveFeedOptions {
  events: EventRepository;
  /** How each event is presented (its name and data). */
  catalogue: EventCatalogue;
  /** Called when the first stream opens, with what to call on each sign of a commit; returns how to stop listening. */
  listen(wake: () => void): () => void;
  /** Told of a read that failed (the database is down); the feed tries again at the next wake-up. */
  onReadError?: (error: unknown) => void;
  /** Events kept in memory after they were sent, so a stream that has caught up joins without a gap (1,000). */
  recentSize?: number;
}

const PAGE = 200;
/** The least time between two reads of the live feed: the wake-up's delay at most, and what batches a burst. */
export const READ_SPACING_MS = 25;

function liveEvent(catalogue: EventCatalogue, event: StoredEvent): LiveEvent {
  const made = new Map<VersionView, string>();
  return {
    id: event.id,
    type: event.type,
    messageIn(version) {
      let message = made.get(version);
      if (message === undefined) {
        message = eventMessage(catalogue, event, version);
        made.set(version, message);
      }
      return message;
    },
  };
}

/**
 * The one reader of new events in a process: on each wake-up it reads what was committed after the
 * last event it read, makes each event's message once and hands it to every live stream. A stream
 * that starts from an older place catches up with reads of its own, then joins here.
 */
export class LiveFeed {
  readonly #options: LiveFeedOptions;
  readonly #recentSize: number;
  readonly #live = new Set<Subscriber>();
  #users = 0;
  #stopListening: (() => void) | null = null;
  // The place after which this feed reads; undefined until the first read of the head is done.
  #cursor: string | null | undefined = undefined;
  #headRead: Promise<void> | null = null;
  // A read of the newest event for place(), shared while it runs.
  #newest: Promise<string | null> | null = null;
  // Counts the times the feed stopped: a read begun before a stop must not touch the feed after it.
  #generation = 0;
  #recent: LiveEvent[] = [];
  #reading: Promise<void> | null = null;
  #again = false;
  // Resolved by the next read that begins after it was asked for.
  #waiting: (() => void)[] = [];

  constructor(options: LiveFeedOptions) {
    this.#options = options;
    this.#recentSize = options.recentSize ?? 1_000;
  }

  /** How the feed's events are presented; a stream catching up with reads of its own presents them alike. */
  get catalogue(): EventCatalogue {
    return this.#options.catalogue;
  }

  /** Open streams: live ones and those still catching up. */
  get size(): number {
    return this.#users;
  }

  /**
   * A stream opens: the feed runs (reads, listens) while at least one is open. Resolves once the feed
   * knows its place; rejects when it cannot be read now. Each call is matched by one release().
   */
  async use(): Promise<void> {
    this.#users += 1;
    if (this.#users === 1) {
      // A fresh start: nothing learnt while no one listened is trusted (a read that was under way
      // when the last stream ended may have set a place that commits since then have passed).
      this.#forget();
      this.#stopListening = this.#options.listen(() => this.wake());
    }
    if (this.#cursor === undefined) await this.#readHead();
  }

  /** A stream ended; the last one stops the feed. */
  release(subscriber: Subscriber | null): void {
    if (subscriber !== null) this.#live.delete(subscriber);
    this.#users -= 1;
    if (this.#users > 0) return;
    this.#stopListening?.();
    this.#stopListening = null;
    this.#forget();
  }

  // Drops the place and what was read: the next read of the head starts again from the database.
  #forget(): void {
    this.#cursor = undefined;
    this.#recent = [];
    this.#headRead = null;
    this.#generation += 1;
  }

  /**
   * Something may have been committed: read soon (once more, if a read is under way). Reads begin at
   * most every READ_SPACING_MS, so a burst of commits is read, and written to each stream, at once.
   */
  wake(): void {
    if (this.#users === 0) return;
    if (this.#reading !== null) {
      this.#again = true;
      return;
    }
    this.#reading = sleep(READ_SPACING_MS).then(() => this.#readAll()).finally(() => {
      this.#reading = null;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Resolves after a read that began after this call has ended (successful or not). */
  nextRead(): Promise<void> {
    const done = new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.wake();
    return done;
  }

  /**
   * The place a stream that starts "now" starts after, fixed before its response head is sent: a
   * change acknowledged after the client saw the stream open comes after it. While the feed runs,
   * its own place (no read at all); else the newest visible event, one read shared by the streams
   * opening at once (any read that ends before a head is sent is early enough for it).
   */
  place(): Promise<string | null> {
    if (this.#users > 0 && this.#cursor !== undefined) return Promise.resolve(this.#cursor);
    if (this.#newest === null) {
      const newest = this.#options.events.head().finally(() => {
        if (this.#newest === newest) this.#newest = null;
      });
      this.#newest = newest;
    }
    return this.#newest;
  }

  /**
   * Makes a stream live after `after` when the feed has read that event or stands there: the events it
   * holds after it are sent at once. False when the feed cannot tell (the stream must read more first).
   */
  joinAfter(after: string | null, subscriber: Subscriber): boolean {
    if (this.#cursor === undefined) return false;
    let from: number;
    if (after === this.#cursor) from = this.#recent.length;
    else {
      const index = after === null ? -1 : this.#recent.findIndex((event) => event.id === after);
      if (index < 0) return false;
      from = index + 1;
    }
    const missed = messagesFor(subscriber, this.#recent.slice(from));
    if (missed !== '') subscriber.send(missed);
    this.#live.add(subscriber);
    return true;
  }

  // The feed's place is the newest event when it starts: what streams joining "now" get comes after it.
  #readHead(): Promise<void> {
    if (this.#headRead !== null) return this.#headRead;
    const generation = this.#generation;
    const headRead = this.#options.events
      .head()
      .then((head) => {
        if (generation === this.#generation) this.#cursor = head;
      })
      .finally(() => {
        if (this.#headRead === headRead) this.#headRead = null;
      });
    this.#headRead = headRead;
    return headRead;
  }

  async #readAll(): Promise<void> {
    const waiting = this.#waiting.splice(0);
    const generation = this.#generation;
    try {
      // Stopped while this read waited its turn: nothing to read for.
      if (this.#users === 0) return;
      if (this.#cursor === undefined) return await this.#readHead();
      for (;;) {
        if (generation !== this.#generation || this.#cursor === undefined) return;
        const read = await this.#options.events.readAfter(this.#cursor, PAGE, null);
        // The feed stopped (and may have started again from another place) while this read ran.
        if (generation !== this.#generation) return;
        if (read.kind !== 'events') return this.#loseAll(read);
        this.#deliver(read.events.map((event) => liveEvent(this.#options.catalogue, event)));
        if (read.events.length < PAGE) return;
        // Sockets write between two pages: a reader that keeps up is never seen as one that stopped.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.#options.onReadError?.(error);
    } finally {
      for (const resolve of waiting) resolve();
    }
  }

  #deliver(events: LiveEvent[]): void {
    if (events.length === 0) return;
    this.#cursor = (events.at(-1) as LiveEvent).id;
    this.#recent.push(...events);
    if (this.#recent.length > this.#recentSize) this.#recent.splice(0, this.#recent.length - this.#recentSize);
    // One text per read and version for every stream that takes all types: one write per stream, of the same string.
    const all = new Map<VersionView, string>();
    for (const subscriber of this.#live) {
      let messages: string;
      if (subscriber.types !== null) messages = messagesFor(subscriber, events);
      else {
        messages = all.get(subscriber.version) ?? events.map((event) => event.messageIn(subscriber.version)).join('');
        all.set(subscriber.version, messages);
      }
      if (messages !== '') subscriber.send(messages);
    }
  }

  // The place the feed stands is past retention: every live stream ends; clients start again (410 tells them).
  #loseAll(_read: Exclude<EventRead, { kind: 'events' }>): void {
    for (const subscriber of this.#live) subscriber.lost();
    this.#live.clear();
    this.#cursor = undefined;
    this.#recent = [];
  }
}

function messagesFor(subscriber: Subscriber, events: readonly LiveEvent[]): string {
  let text = '';
  for (const event of events) if (subscriber.types === null || subscriber.types.has(event.type)) text += event.messageIn(subscriber.version);
  return text;
}

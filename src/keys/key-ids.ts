import type { KeyIdsAfter } from './repository.ts';

/** What the set of key ids is built from. */
export interface KeyIdsOptions {
  /** The ids of keys above a seq (the repository's idsAfter): the set's only I/O. */
  idsAfter(afterSeq: number): Promise<KeyIdsAfter>;
  /** Told of every refresh, and whether it read the ids. */
  onRefresh?: (result: KeyIdRefreshResult) => void;
  /** A monotonic clock in ms (performance.now by default). */
  now?: () => number;
  /** The least time between the starts of two refreshes: 250 ms, so at most 4 a second. */
  refreshGapMs?: number;
}

/** How a refresh of the set ended, as `api_key_id_refreshes_total` labels it. */
export type KeyIdRefreshResult = 'done' | 'failed';

/** Every refresh result, in the order the counter lists them. */
export const KEY_ID_REFRESH_RESULTS: readonly KeyIdRefreshResult[] = ['done', 'failed'];

/**
 * The public ids of every stored key (never a secret), held in memory so that a key id nobody made
 * is refused without a read. Keys are never deleted, so the set only grows, and one query for the
 * ids above the highest seq seen keeps it current. A refresh runs only when asked (an id not in the
 * set), one at a time and at most one per `refreshGapMs`, whatever number of requests ask: what a
 * flood of invented keys can cost the database. The first refresh (every id) starts at once.
 */
export class KeyIds {
  readonly #options: KeyIdsOptions;
  readonly #now: () => number;
  readonly #gapMs: number;
  readonly #ids = new Set<string>();
  #lastSeq = 0;
  #lastStartedAt = Number.NEGATIVE_INFINITY;
  #running: Promise<void> | null = null;
  // The refresh that starts next: every request that arrived since the running one started waits for it.
  #next: Promise<void> | null = null;

  constructor(options: KeyIdsOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#gapMs = options.refreshGapMs ?? 250;
    // Loaded ahead of the first request; a failure here is met again by the first request that asks.
    this.refreshed().catch(() => {});
  }

  /** How many ids are held. */
  get size(): number {
    return this.#ids.size;
  }

  /** Whether a key with this id is known to exist. */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** A key this process has just made: known at once. */
  add(id: string): void {
    this.#ids.add(id);
  }

  /**
   * Resolves once a refresh that STARTED after this call has ended, so any key committed before the
   * call is in the set; rejects with that refresh's error (the database cannot be read).
   */
  refreshed(): Promise<void> {
    // Not started yet, so it will start after this call: every request until then shares it.
    this.#next ??= this.#startNext();
    return this.#next;
  }

  // A refresh under way may have begun before the key a request names was made: the next one waits
  // for it to end, then for the gap, then for a turn of the event loop, so that the requests that
  // arrived together share one query.
  async #startNext(): Promise<void> {
    await this.#running?.catch(() => {});
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A timer may fire a little before the clock says it is due: wait again until it is.
    for (let waitMs = this.#waitMs(); waitMs > 0; waitMs = this.#waitMs()) {
      // Not unref'd: a request waits on it, and that wait must keep the process alive.
      await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
    }
    this.#next = null;
    this.#lastStartedAt = this.#now();
    const running: Promise<void> = this.#read().finally(() => {
      if (this.#running === running) this.#running = null;
    });
    this.#running = running;
    return running;
  }

  #waitMs(): number {
    return this.#lastStartedAt + this.#gapMs - this.#now();
  }

  async #read(): Promise<void> {
    const onRefresh = this.#options.onRefresh ?? (() => {});
    let found: KeyIdsAfter;
    try {
      found = await this.#options.idsAfter(this.#lastSeq);
    } catch (error) {
      onRefresh('failed');
      throw error;
    }
    onRefresh('done');
    for (const id of found.ids) this.#ids.add(id);
    this.#lastSeq = Math.max(this.#lastSeq, found.lastSeq);
  }
}

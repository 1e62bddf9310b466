/**
 * A Map that holds at most `capacity` entries and forgets the least recently used one first: what
 * bounds the memory of the key check's caches whatever ids a flood of requests names.
 */
export class LruMap<K, V> {
  readonly #capacity: number;
  // A Map iterates in insertion order, so re-inserting on use keeps the least recent first.
  readonly #entries = new Map<K, V>();
  // The most recently used key, the Map's last: using it again moves nothing. Each move is a delete
  // and a set, and the deleted slots make the Map rebuild its table every few moves, so a client that
  // sends the same key request after request (the usual one) would pay that on every request.
  #newest: K | undefined = undefined;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('an LruMap holds at least one entry');
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key`, which becomes the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined && key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  /** The value of `key` without making it the most recently used; undefined when absent. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Stores `value` as the most recently used, forgetting the least recently used entry when full. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
    if (key === this.#newest) this.#newest = undefined;
  }
}

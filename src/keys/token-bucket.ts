/**
 * A token bucket: up to `burst` takes at once, then `perSecond` a second on average. The key check
 * spends one per database read of an id it does not know, so a flood of random keys costs at most
 * this many reads whatever its size. `now` is in milliseconds; a clock that steps back refills nothing.
 */
export class TokenBucket {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #updatedAt: number;

  constructor(options: { perSecond: number; burst: number; now: () => number }) {
    if (!(options.perSecond > 0) || !(options.burst >= 1)) throw new RangeError('a token bucket needs a positive rate and a burst of at least 1');
    this.#perSecond = options.perSecond;
    this.#burst = options.burst;
    this.#now = options.now;
    this.#tokens = options.burst;
    this.#updatedAt = options.now();
  }

  /** Takes one token when there is one; false (and nothing taken) otherwise. */
  take(): boolean {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed * this.#perSecond) / 1000);
    this.#updatedAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

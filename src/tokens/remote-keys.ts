import { discoverJwksUrl } from './discovery.ts';
import { fetchJson, KeyFetchError } from './fetch-json.ts';
import { type KeySet, readKeySet } from './key-set.ts';

/** Where the issuer's keys are and how often they may be fetched. */
export interface RemoteKeysOptions {
  readonly issuer: string;
  /** The JWKS URL; '' to find it in the issuer's discovery document. */
  readonly jwksUrl: string;
  /** How long one fetch (discovery and JWKS together) may take before it counts as failed. */
  readonly timeoutMs: number;
  /** The least time between two fetches, whatever asks for them (30 s, as docs/security.md promises). */
  readonly cooldownMs: number;
  /** Keys older than this are fetched again in the background, so a key the issuer withdraws stops working. */
  readonly maxAgeMs: number;
  readonly now: () => number;
  /** Told each failed fetch, for the log; the cached keys stay in use. */
  readonly onFailure: (error: Error) => void;
  /** Told each time a new key set replaces the old one. */
  readonly onReplaced: () => void;
}

/**
 * The issuer's JWKS, fetched on demand and cached: at most one fetch per cooldown, one at a time
 * (every caller waiting on the same one), and a failure keeps the keys already held.
 */
export class RemoteKeys {
  readonly #options: RemoteKeysOptions;
  #jwksUrl: string;
  #keys: KeySet | null = null;
  #fetchedAt = -Infinity;
  #startedAt = -Infinity;
  #inFlight: Promise<void> | null = null;
  #failing = false;

  constructor(options: RemoteKeysOptions) {
    this.#options = options;
    this.#jwksUrl = options.jwksUrl;
  }

  /** Whether the last fetch failed (the provider is down or answers nonsense). */
  get failing(): boolean {
    return this.#failing;
  }

  /** The keys held now (null before the first successful fetch); old keys are refreshed in the background. */
  current(): KeySet | null {
    if (this.#keys !== null && this.#options.now() - this.#fetchedAt >= this.#options.maxAgeMs) void this.refetch();
    return this.#keys;
  }

  /**
   * A fetch, settled when it has ended (it never rejects): the one in flight, a new one, or null when
   * the last one started less than the cooldown ago.
   */
  refetch(): Promise<void> | null {
    if (this.#inFlight !== null) return this.#inFlight;
    const now = this.#options.now();
    if (now - this.#startedAt < this.#options.cooldownMs) return null;
    this.#startedAt = now;
    this.#inFlight = this.#fetch().finally(() => {
      this.#inFlight = null;
    });
    return this.#inFlight;
  }

  async #fetch(): Promise<void> {
    const signal = AbortSignal.timeout(this.#options.timeoutMs);
    try {
      // The discovered URL is kept: an issuer's jwks_uri does not move between rotations.
      if (this.#jwksUrl === '') this.#jwksUrl = await discoverJwksUrl(this.#options.issuer, signal);
      const keys = readKeySet(await fetchJson(this.#jwksUrl, signal));
      if (keys === null) throw new KeyFetchError(`${this.#jwksUrl} is not a JWK Set`);
      this.#keys = keys;
      this.#fetchedAt = this.#options.now();
      this.#failing = false;
      this.#options.onReplaced();
    } catch (error) {
      this.#failing = true;
      this.#options.onFailure(error instanceof Error ? error : new KeyFetchError(String(error)));
    }
  }
}

import { timingSafeEqual } from 'node:crypto';
import { type Caller, type CredentialCheck, type Identified, refused } from '../callers/caller.ts';
import { keyDigest, parseKey } from './format.ts';
import { LruMap } from './lru-map.ts';
import type { ApiKey } from './model.ts';
import { TokenBucket } from './token-bucket.ts';

/** How a database read of one key id ended, as `api_key_lookups_total` labels it. */
export type KeyLookupResult = 'found' | 'absent' | 'failed';

/** Every lookup result, in the order the counter lists them. */
export const KEY_LOOKUP_RESULTS: readonly KeyLookupResult[] = ['found', 'absent', 'failed'];

/** What the key check is built from; the numbers default to the documented ones (docs/security.md, API keys). */
export interface KeyCheckOptions {
  /** Reads a key by its public id (the repository's findById): the only I/O of the check. */
  find(id: string): Promise<ApiKey | undefined>;
  /** Told of every read `find` made, and how it ended. */
  onLookup?: (result: KeyLookupResult) => void;
  /** A monotonic clock in ms for the caches' ages and the budget (performance.now by default). */
  now?: () => number;
  /** The wall clock in ms that expiry is judged by (Date.now by default). */
  wallNow?: () => number;
  /** How long a read is trusted, for keys found and ids absent alike: 2000 ms. */
  ttlMs?: number;
  /** Reads of ids not known to exist: 20 a second on average, at most 20 at once. */
  lookupsPerSecond?: number;
  lookupBurst?: number;
  /** Keys kept in memory per process (10,000) and absent ids (1,000), least recently used forgotten first. */
  maxKnown?: number;
  maxAbsent?: number;
}

/** The API-key kind of CredentialCheck, and how this process tells it of its own writes. */
export interface KeyCheck extends CredentialCheck {
  /** A key this process just made or revoked: trusted from now on, without a read, and any read under way is ignored. */
  remember(apiKey: ApiKey): void;
}

// A key as the check holds it: what judging a request needs, decoded once.
interface Known {
  id: string;
  caller: Caller;
  digest: Buffer;
  expiresAt: number | null;
  revoked: boolean;
  readAt: number;
}

const EXPIRED = 'The API key has expired.';
const REVOKED = 'The API key has been revoked.';

function knownFrom(apiKey: ApiKey, readAt: number): Known {
  return {
    id: apiKey.id,
    caller: { kind: 'key', id: apiKey.id, scopes: apiKey.scopes },
    digest: Buffer.from(apiKey.digest, 'base64url'),
    expiresAt: apiKey.expiresAt === null ? null : Date.parse(apiKey.expiresAt),
    revoked: apiKey.revokedAt !== null,
    readAt,
  };
}

// Whether the whole key is the one stored, then whether it may still be used. Expiry is judged on
// every request, so it is exact; expired and revoked are told only to whoever holds the whole key.
function judge(known: Known, key: string, now: number): Identified {
  const presented = keyDigest(key);
  // Equal lengths always (both SHA-256); the guard keeps a damaged row from throwing.
  if (presented.length !== known.digest.length || !timingSafeEqual(presented, known.digest)) return refused('invalid');
  return judgeMatched(known, now);
}

// After the whole key matched the stored digest: whether it may still be used.
function judgeMatched(known: Known, now: number): Identified {
  if (known.expiresAt !== null && now >= known.expiresAt) return refused('expired', EXPIRED);
  if (known.revoked) return refused('revoked', REVOKED);
  return { ok: true, caller: known.caller };
}

/**
 * Checks API keys in a fixed order: shape and checksum (no I/O), the key by id (cached, else read),
 * the digest in constant time, expiry, revocation. A key read is trusted for `ttlMs`, then read
 * again (one read per id at a time), so a revocation elsewhere is seen within that time; a read
 * that fails rejects (503), never letting a request through on what was read before. Reads of ids
 * not known to exist spend the budget; past it such an id is refused without touching storage.
 */
class ApiKeyCheck implements KeyCheck {
  readonly #options: KeyCheckOptions;
  readonly #now: () => number;
  readonly #wallNow: () => number;
  readonly #ttlMs: number;
  readonly #known: LruMap<string, Known>;
  readonly #absent: LruMap<string, number>;
  readonly #budget: TokenBucket;
  readonly #reading = new Map<string, Promise<Known | null>>();
  // Whole keys whose digest matched the entry they point to: while that entry is the current and
  // fresh one of its id, the same key is judged without its checksum and digest again (the key's
  // SHA-256 per request is most of the check's CPU). Keyed by the whole key, as verified tokens are.
  readonly #matched: LruMap<string, Known>;

  constructor(options: KeyCheckOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#wallNow = options.wallNow ?? Date.now;
    this.#ttlMs = options.ttlMs ?? 2_000;
    this.#known = new LruMap(options.maxKnown ?? 10_000);
    this.#absent = new LruMap(options.maxAbsent ?? 1_000);
    this.#matched = new LruMap(options.maxKnown ?? 10_000);
    this.#budget = new TokenBucket({ perSecond: options.lookupsPerSecond ?? 20, burst: options.lookupBurst ?? 20, now: this.#now });
  }

  identify(credential: string): Identified | Promise<Identified> {
    const matched = this.#matched.get(credential);
    if (matched !== undefined && this.#known.peek(matched.id) === matched && this.#fresh(matched.readAt)) return judgeMatched(matched, this.#wallNow());
    const id = parseKey(credential);
    if (id === null) return refused('malformed');
    const cached = this.#known.get(id);
    if (cached !== undefined && this.#fresh(cached.readAt)) return this.#judge(cached, credential);
    // Re-reading a key known to exist is outside the budget: their number is that of the real keys in use.
    if (cached === undefined && !this.#reading.has(id)) {
      const absentSince = this.#absent.get(id);
      if (absentSince !== undefined && this.#fresh(absentSince)) return refused('unknown');
      if (!this.#budget.take()) return refused('unverifiable');
    }
    return this.#read(id).then((entry) => (entry === null ? refused('unknown') : this.#judge(entry, credential)));
  }

  #judge(known: Known, credential: string): Identified {
    const identified = judge(known, credential, this.#wallNow());
    // Only a key whose digest matched is remembered whole (expired or revoked ones too: judged again each time).
    if (identified.ok || identified.refusal.reason !== 'invalid') this.#matched.set(credential, known);
    return identified;
  }

  remember(apiKey: ApiKey): void {
    this.#reading.delete(apiKey.id);
    this.#absent.delete(apiKey.id);
    this.#known.set(apiKey.id, knownFrom(apiKey, this.#now()));
  }

  #fresh(readAt: number): boolean {
    return this.#now() - readAt < this.#ttlMs;
  }

  // One read per id at a time: every request for it meanwhile waits for the same answer.
  #read(id: string): Promise<Known | null> {
    const underWay = this.#reading.get(id);
    if (underWay !== undefined) return underWay;
    const promise: Promise<Known | null> = this.#lookup(id, () => this.#reading.get(id) === promise).finally(() => {
      if (this.#reading.get(id) === promise) this.#reading.delete(id);
    });
    this.#reading.set(id, promise);
    return promise;
  }

  // `stillWanted` is false once remember() replaced this read: its news is newer than what was read.
  async #lookup(id: string, stillWanted: () => boolean): Promise<Known | null> {
    const readAt = this.#now();
    const onLookup = this.#options.onLookup ?? (() => {});
    let apiKey: ApiKey | undefined;
    try {
      apiKey = await this.#options.find(id);
    } catch (error) {
      onLookup('failed');
      throw error;
    }
    onLookup(apiKey === undefined ? 'absent' : 'found');
    const entry = apiKey === undefined ? null : knownFrom(apiKey, readAt);
    if (!stillWanted()) return entry;
    if (entry === null) {
      this.#known.delete(id);
      this.#absent.set(id, readAt);
    } else {
      this.#known.set(id, entry);
    }
    return entry;
  }
}

/** The service's check of API keys (SVC_AUTH=keys) on `options.find`. */
export function createKeyCheck(options: KeyCheckOptions): KeyCheck {
  return new ApiKeyCheck(options);
}

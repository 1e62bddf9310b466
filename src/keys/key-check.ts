import { timingSafeEqual } from 'node:crypto';
import { type Admit, type Caller, type CredentialCheck, type Identified, refused } from '../callers/caller.ts';
import { keyDigest, parseKey } from './format.ts';
import type { KeyIds } from './key-ids.ts';
import { LruMap } from './lru-map.ts';
import type { ApiKey } from './model.ts';

/** How a database read of one key id ended, as `api_key_lookups_total` labels it. */
export type KeyLookupResult = 'found' | 'absent' | 'failed';

/** Every lookup result, in the order the counter lists them. */
export const KEY_LOOKUP_RESULTS: readonly KeyLookupResult[] = ['found', 'absent', 'failed'];

/** What the key check is built from; the numbers default to the documented ones (docs/security.md, API keys). */
export interface KeyCheckOptions {
  /** Reads a key by its public id (the repository's findById). */
  find(id: string): Promise<ApiKey | undefined>;
  /** Told of every read `find` made, and how it ended. */
  onLookup?: (result: KeyLookupResult) => void;
  /** The ids of every stored key, which decide whether an id is worth a read at all. */
  ids: KeyIds;
  /** A monotonic clock in ms for the cache's ages (performance.now by default). */
  now?: () => number;
  /** The wall clock in ms that expiry is judged by (Date.now by default). */
  wallNow?: () => number;
  /** How long a read of a key is trusted: 2000 ms. */
  ttlMs?: number;
  /** Keys kept in memory per process (10,000), least recently used forgotten first. */
  maxKnown?: number;
}

/** The API-key kind of CredentialCheck, and how this process tells it of its own writes. */
export interface KeyCheck extends CredentialCheck {
  /** A key this process just made, changed or revoked: trusted from now on, without a read, and any read under way is ignored. */
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
const NO_GATE: Admit = () => {};

function knownFrom(apiKey: ApiKey, readAt: number): Known {
  return {
    id: apiKey.id,
    // The key's pin travels with its caller: a re-read after a PATCH elsewhere brings the new one.
    caller: { kind: 'key', id: apiKey.id, scopes: apiKey.scopes, apiVersion: apiKey.apiVersion },
    digest: Buffer.from(apiKey.digest, 'base64url'),
    expiresAt: apiKey.expiresAt === null ? null : Date.parse(apiKey.expiresAt),
    revoked: apiKey.revokedAt !== null,
    readAt,
  };
}

// Whether the whole key is the one stored. Equal lengths always (both SHA-256); the guard keeps a damaged row from throwing.
function holds(known: Known, key: string): boolean {
  const presented = keyDigest(key);
  return presented.length === known.digest.length && timingSafeEqual(presented, known.digest);
}

// Whether an expired or revoked key is so for good: neither is ever undone, so no read can change the answer.
function settled(known: Known, now: number): boolean {
  return known.revoked || (known.expiresAt !== null && now >= known.expiresAt);
}

// After the whole key matched the stored digest: whether it may still be used. Expiry is judged on
// every request, so it is exact; expired and revoked are told only to whoever holds the whole key.
function judgeMatched(known: Known, now: number): Identified {
  if (known.expiresAt !== null && now >= known.expiresAt) return refused('expired', EXPIRED);
  if (known.revoked) return refused('revoked', REVOKED);
  return { ok: true, caller: known.caller };
}

/**
 * Checks API keys in a fixed order: shape and checksum (no I/O); the id against the set of stored
 * ids (no I/O; an id not in it waits for one refresh of the set, shared by every request, then is
 * refused); the key by id (cached, else read); the digest in constant time, expiry, revocation. A
 * key read is trusted for `ttlMs` from the START of its read, then read again (one read per id at a
 * time), so a revocation elsewhere is seen within that time; a read that fails rejects (503), never
 * letting a request through on what was read before. `admit` is asked before any database work a
 * credential not yet known to be valid would cause (the pipeline's rate limit per address).
 */
class ApiKeyCheck implements KeyCheck {
  readonly #options: KeyCheckOptions;
  readonly #ids: KeyIds;
  readonly #now: () => number;
  readonly #wallNow: () => number;
  readonly #ttlMs: number;
  readonly #known: LruMap<string, Known>;
  readonly #reading = new Map<string, Promise<Known | null>>();
  // Whole keys whose digest matched the entry they point to: while that entry is the current and
  // fresh one of its id, the same key is judged without its checksum and digest again (the key's
  // SHA-256 per request is most of the check's CPU). Keyed by the whole key, as verified tokens are.
  readonly #matched: LruMap<string, Known>;

  constructor(options: KeyCheckOptions) {
    this.#options = options;
    this.#ids = options.ids;
    this.#now = options.now ?? (() => performance.now());
    this.#wallNow = options.wallNow ?? Date.now;
    this.#ttlMs = options.ttlMs ?? 2_000;
    this.#known = new LruMap(options.maxKnown ?? 10_000);
    this.#matched = new LruMap(options.maxKnown ?? 10_000);
  }

  identify(credential: string, admit: Admit = NO_GATE): Identified | Promise<Identified> {
    const matched = this.#matched.get(credential);
    if (matched !== undefined && this.#known.peek(matched.id) === matched) {
      const now = this.#wallNow();
      if (this.#fresh(matched.readAt) || settled(matched, now)) return judgeMatched(matched, now);
    }
    const id = parseKey(credential);
    if (id === null) return refused('malformed');
    const cached = this.#known.get(id);
    if (cached !== undefined) {
      const now = this.#wallNow();
      if (this.#fresh(cached.readAt) || settled(cached, now)) return this.#judge(cached, credential, now);
      // A key's digest never changes: a wrong secret is refused without a read, and the right one is its holder's re-read.
      if (!holds(cached, credential)) return refused('invalid');
      return this.#judged(id, credential);
    }
    admit();
    if (this.#ids.has(id) || this.#reading.has(id)) return this.#judged(id, credential);
    return this.#ids.refreshed().then(() => (this.#ids.has(id) ? this.#judged(id, credential) : refused('unknown')));
  }

  // The whole key, then whether it may still be used; a key whose digest matched is remembered whole
  // with the entry it matched (expired or revoked ones too: judged again each time).
  #judge(known: Known, credential: string, now: number): Identified {
    if (!holds(known, credential)) return refused('invalid');
    this.#matched.set(credential, known);
    return judgeMatched(known, now);
  }

  remember(apiKey: ApiKey): void {
    this.#reading.delete(apiKey.id);
    this.#ids.add(apiKey.id);
    this.#known.set(apiKey.id, knownFrom(apiKey, this.#now()));
  }

  #fresh(readAt: number): boolean {
    return this.#now() - readAt < this.#ttlMs;
  }

  #judged(id: string, credential: string): Promise<Identified> {
    return this.#read(id).then((entry) => (entry === null ? refused('unknown') : this.#judge(entry, credential, this.#wallNow())));
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
    // Trust runs from the start of the read: a revocation committed while it was under way may be missing from it.
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
    if (entry === null) this.#known.delete(id);
    else this.#known.set(id, entry);
    return entry;
  }
}

/** The service's check of API keys (SVC_AUTH=keys) on `options.find` and `options.ids`. */
export function createKeyCheck(options: KeyCheckOptions): KeyCheck {
  return new ApiKeyCheck(options);
}

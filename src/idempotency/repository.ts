/** A response stored for an Idempotency-Key, with the fingerprint of the request that made it. */
export interface StoredResponse {
  fingerprint: string;
  status: number;
  location: string | null;
  etag: string | null;
  body: string;
}

/** Storage of idempotency records; each engine implements it in its own file. */
export interface IdempotencyRepository {
  /**
   * The unexpired record of `key` in `scope`, if any. Inside a write transaction, and once called,
   * no other transaction can store the same key until this one ends (engines lock as they must).
   */
  find(scope: string, key: string, nowMs: number): Promise<StoredResponse | undefined>;
  /** Saves a record, replacing an expired one with the same key. */
  save(scope: string, key: string, response: StoredResponse, expiresAtMs: number): Promise<void>;
  /** Deletes up to `limit` expired records; resolves to how many. */
  purgeExpired(nowMs: number, limit: number): Promise<number>;
}

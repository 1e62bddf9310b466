import type { DatabaseSync } from 'node:sqlite';

/** A response stored for an Idempotency-Key, with the fingerprint of the request that made it. */
export interface StoredResponse {
  fingerprint: string;
  status: number;
  location: string | null;
  body: string;
}

/** Storage of idempotency records; the only code that knows their SQL. */
export interface IdempotencyRepository {
  /** The unexpired record of `key` in `scope`, if any. */
  find(scope: string, key: string, nowMs: number): StoredResponse | undefined;
  /** Saves a record, replacing an expired one with the same key. */
  save(scope: string, key: string, response: StoredResponse, expiresAtMs: number): void;
  /** Deletes up to `limit` expired records; returns how many. */
  purgeExpired(nowMs: number, limit: number): number;
}

export function createIdempotencyRepository(db: DatabaseSync): IdempotencyRepository {
  const find = db.prepare(
    'SELECT fingerprint, status, location, body FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at > ?',
  );
  const save = db.prepare(
    'INSERT OR REPLACE INTO idempotency_keys (scope, key, fingerprint, status, location, body, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const purge = db.prepare(
    'DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)',
  );
  return {
    find(scope, key, nowMs) {
      const row = find.get(scope, key, nowMs);
      if (row === undefined) return undefined;
      return {
        fingerprint: String(row['fingerprint']),
        status: Number(row['status']),
        location: row['location'] === null ? null : String(row['location']),
        body: String(row['body']),
      };
    },
    save(scope, key, response, expiresAtMs) {
      save.run(scope, key, response.fingerprint, response.status, response.location, response.body, expiresAtMs);
    },
    purgeExpired(nowMs, limit) {
      return Number(purge.run(nowMs, limit).changes);
    },
  };
}

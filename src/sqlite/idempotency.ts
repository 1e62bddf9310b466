import type { DatabaseSync } from 'node:sqlite';
import type { IdempotencyRepository } from '../idempotency/repository.ts';
import { BOUND_LIMIT } from './limit.ts';

/** Idempotency records on node:sqlite; the write transaction's IMMEDIATE lock already serialises keys. */
export function createSqliteIdempotencyRepository(db: DatabaseSync): IdempotencyRepository {
  const find = db.prepare(
    'SELECT fingerprint, status, location, etag, body FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at > ?',
  );
  const save = db.prepare(
    'INSERT OR REPLACE INTO idempotency_keys (scope, key, fingerprint, status, location, etag, body, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const purge = db.prepare(
    `DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM idempotency_keys WHERE expires_at <= ? ${BOUND_LIMIT})`,
  );
  return {
    async find(scope, key, nowMs) {
      const row = find.get(scope, key, nowMs);
      if (row === undefined) return undefined;
      return {
        fingerprint: String(row['fingerprint']),
        status: Number(row['status']),
        location: row['location'] === null ? null : String(row['location']),
        etag: row['etag'] === null ? null : String(row['etag']),
        body: String(row['body']),
      };
    },
    async save(scope, key, response, expiresAtMs) {
      save.run(scope, key, response.fingerprint, response.status, response.location, response.etag, response.body, expiresAtMs);
    },
    async purgeExpired(nowMs, limit) {
      return Number(purge.run(nowMs, limit).changes);
    },
  };
}

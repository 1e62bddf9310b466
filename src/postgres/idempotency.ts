import type { SqlRunner } from './client.ts';
import type { IdempotencyRepository } from '../idempotency/repository.ts';

/**
 * Idempotency records on PostgreSQL. `find` first takes a transaction-scoped advisory lock on the
 * key, so when the same key reaches two nodes at once the second waits until the first commits (or
 * rolls back) and then finds its stored response: one resource for one key, across machines.
 */
export function createPostgresIdempotencyRepository(db: SqlRunner): IdempotencyRepository {
  return {
    async find(scope, key, nowMs) {
      await db.rows("SELECT pg_advisory_xact_lock(hashtextextended($1::text || E'\\n' || $2::text, 0))", [scope, key]);
      const [row] = await db.rows(
        'SELECT fingerprint, status, location, etag, body FROM idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at > $3',
        [scope, key, nowMs],
      );
      if (row === undefined) return undefined;
      return { fingerprint: row[0] as string, status: row[1] as number, location: row[2] as string | null, etag: row[3] as string | null, body: row[4] as string };
    },
    async save(scope, key, response, expiresAtMs) {
      await db.run(
        `INSERT INTO idempotency_keys (scope, key, fingerprint, status, location, etag, body, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (scope, key) DO UPDATE SET fingerprint = $3, status = $4, location = $5, etag = $6, body = $7, expires_at = $8`,
        [scope, key, response.fingerprint, response.status, response.location, response.etag, response.body, expiresAtMs],
      );
    },
    async purgeExpired(nowMs, limit) {
      // SKIP LOCKED: two nodes purging at once take different rows instead of waiting on each other.
      return db.run(
        `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED))`,
        [nowMs, limit],
      );
    },
  };
}

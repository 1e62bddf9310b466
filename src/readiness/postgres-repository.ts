import type { SqlRunner } from '../db/postgres/client.ts';
import { sqlState } from '../db/postgres/errors.ts';
import type { ReadinessRepository } from './repository.ts';

/** Readiness on PostgreSQL: the highest migration recorded, which also proves the server answers. */
export function createPostgresReadinessRepository(db: SqlRunner): ReadinessRepository {
  return {
    async schemaVersion() {
      try {
        const [row] = await db.rows('SELECT coalesce(max(version), 0) FROM schema_migrations');
        return Number(row?.[0]);
      } catch (error) {
        // No migration table yet: the database answers, at version 0.
        if (sqlState(error) === '42P01') return 0;
        throw error;
      }
    },
  };
}

import type { SqlRunner } from '../db/postgres/client.ts';
import { postgresSchemaVersion } from '../db/postgres/migrate.ts';
import type { ReadinessRepository } from './repository.ts';

/** Readiness on PostgreSQL: the highest migration recorded (0 before any), which also proves the server answers. */
export function createPostgresReadinessRepository(db: SqlRunner): ReadinessRepository {
  return { schemaVersion: () => postgresSchemaVersion(db) };
}

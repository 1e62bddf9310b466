import type { SqlRunner } from './client.ts';
import { postgresSchemaVersion } from './migrate.ts';
import type { ReadinessRepository } from '../readiness/repository.ts';

/** Readiness on PostgreSQL: the highest migration recorded (0 before any), which also proves the server answers. */
export function createPostgresReadinessRepository(db: SqlRunner): ReadinessRepository {
  return { schemaVersion: () => postgresSchemaVersion(db) };
}

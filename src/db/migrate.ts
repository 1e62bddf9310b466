import type { DatabaseSync } from 'node:sqlite';
import { schemaVersion } from '../sqlite/database.ts';
import {
  assertNotNewer, DEFAULT_MIGRATION_PARAMETERS, DEFAULT_SQL_DIR, filledIn, type Migration, MigrationError, type MigrationParameters, type MigrationResult,
  readMigrations,
} from './migrations.ts';
import type { PostgresClient } from '../postgres/client.ts';
import { migratePostgres } from '../postgres/migrate.ts';

export {
  assertNotNewer,
  DEFAULT_POSTGRES_SQL_DIR,
  DEFAULT_SQL_DIR,
  latestVersion,
  type Migration,
  MigrationError,
  type MigrationParameters,
  type MigrationResult,
  readMigrations,
} from './migrations.ts';

function applyOne(db: DatabaseSync, migration: Migration, parameters: MigrationParameters): boolean {
  // BEGIN IMMEDIATE takes the write lock first, so two migrators never both apply a file.
  db.exec('BEGIN IMMEDIATE');
  try {
    if (schemaVersion(db) >= migration.version) {
      db.exec('ROLLBACK');
      return false;
    }
    db.exec(filledIn(migration, parameters));
    db.exec(`PRAGMA user_version = ${migration.version}`);
    db.exec('COMMIT');
    return true;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw new MigrationError(`${migration.file} failed and was rolled back: ${(error as Error).message}`);
  }
}

function migrateSqlite(db: DatabaseSync, sqlDir: string, parameters: MigrationParameters): MigrationResult {
  const migrations = readMigrations(sqlDir);
  const from = schemaVersion(db);
  assertNotNewer(from, migrations.at(-1)?.version ?? 0);
  const applied: string[] = [];
  for (const migration of migrations.filter((m) => m.version > from)) {
    if (applyOne(db, migration, parameters)) applied.push(migration.file);
  }
  return { from, to: schemaVersion(db), applied };
}

/**
 * Applies every migration above the database's version, each file with its new version in one
 * transaction: SQLite's from `sql/` (synchronously), PostgreSQL's from `sql/postgres/`. `parameters`
 * fill in what a file takes from the environment (SVC_DEFAULT_CURRENCY; EUR when not given).
 */
export function migrate(db: DatabaseSync, sqlDir?: string, parameters?: MigrationParameters): MigrationResult;
export function migrate(db: PostgresClient, sqlDir?: string, parameters?: MigrationParameters): Promise<MigrationResult>;
export function migrate(db: DatabaseSync | PostgresClient, sqlDir?: string, parameters?: MigrationParameters): MigrationResult | Promise<MigrationResult>;
export function migrate(
  db: DatabaseSync | PostgresClient,
  sqlDir?: string,
  parameters: MigrationParameters = DEFAULT_MIGRATION_PARAMETERS,
): MigrationResult | Promise<MigrationResult> {
  if ('engine' in db) return migratePostgres(db, sqlDir, parameters);
  return migrateSqlite(db, sqlDir ?? DEFAULT_SQL_DIR, parameters);
}

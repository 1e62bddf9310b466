import {
  assertNotNewer, DEFAULT_MIGRATION_PARAMETERS, DEFAULT_POSTGRES_SQL_DIR, filledIn, type Migration, MigrationError, type MigrationParameters, type MigrationResult,
  readMigrations,
} from '../db/migrations.ts';
import type { PostgresClient, SqlRunner } from './client.ts';
import { sqlState } from './errors.ts';

// Every migrator takes this transaction-scoped advisory lock first, so of two started at once (on
// two machines) one applies each file and the other then finds it applied.
const MIGRATION_LOCK = 7_363_101_170_201;

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    integer     PRIMARY KEY,
  file       text        NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The number of the last migration applied to the database; 0 when none was. Changes nothing. */
export async function postgresSchemaVersion(db: SqlRunner): Promise<number> {
  try {
    const [row] = await db.rows('SELECT coalesce(max(version), 0) FROM schema_migrations');
    return Number(row?.[0]);
  } catch (error) {
    if (sqlState(error) === '42P01') return 0;
    throw error;
  }
}

// One file and its version row in one transaction: PostgreSQL's DDL is transactional, so a file
// that fails leaves nothing of itself behind.
async function applyOne(client: PostgresClient, migration: Migration, parameters: MigrationParameters): Promise<boolean> {
  try {
    return await client.transaction(async (tx) => {
      await tx.rows('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.script(VERSION_TABLE);
      if ((await postgresSchemaVersion(tx)) >= migration.version) return false;
      await tx.script(filledIn(migration, parameters));
      await tx.run('INSERT INTO schema_migrations (version, file) VALUES ($1, $2)', [migration.version, migration.file]);
      return true;
    });
  } catch (error) {
    if (sqlState(error) === undefined) throw error;
    throw new MigrationError(`${migration.file} failed and was rolled back: ${(error as Error).message}`);
  }
}

/** Applies every PostgreSQL migration above the database's version, each in its own transaction. */
export async function migratePostgres(
  client: PostgresClient,
  sqlDir: string = DEFAULT_POSTGRES_SQL_DIR,
  parameters: MigrationParameters = DEFAULT_MIGRATION_PARAMETERS,
): Promise<MigrationResult> {
  const migrations = readMigrations(sqlDir);
  const from = await postgresSchemaVersion(client);
  assertNotNewer(from, migrations.at(-1)?.version ?? 0);
  const applied: string[] = [];
  for (const migration of migrations.filter((m) => m.version > from)) {
    if (await applyOne(client, migration, parameters)) applied.push(migration.file);
  }
  return { from, to: await postgresSchemaVersion(client), applied };
}

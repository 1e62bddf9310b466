// By name, as another project would: package.json `exports` sends this to dist/ (run `npm run build` first).
import { type Database, migrate, type MigrationResult, openDatabase, openPostgres } from 'svc-http-sqlite';
import { createTestDatabase } from './test-database.ts';
import { TEST_ENGINE } from './test-engine.ts';

/** A database opened as an embedding program opens it, through the package's own exports. */
export interface EmbeddedDatabase {
  db: Database;
  /** The variables that name it for loadConfig and startServer (none for `:memory:`). */
  env: Record<string, string>;
  /** The package's migrate() on it: synchronous on SQLite, a promise on PostgreSQL. */
  migrate(): Promise<MigrationResult>;
  /** Closes the connection or ends the pool, and removes the database. */
  close(): Promise<void>;
}

/**
 * Not migrated yet: SQLite `:memory:` (openDatabase), or in the PostgreSQL pass an empty database on
 * the cluster opened with openPostgres(url).
 */
export async function openEmbeddedDatabase(): Promise<EmbeddedDatabase> {
  if (TEST_ENGINE === 'sqlite') {
    const db = openDatabase(':memory:');
    return { db, env: {}, migrate: async () => migrate(db), close: async () => db.close() };
  }
  const database = await createTestDatabase({ migrated: false });
  const db = openPostgres(String(database.env['SVC_DATABASE_URL']));
  return {
    db,
    env: database.env,
    migrate: () => migrate(db),
    async close() {
      await db.end();
      await database.drop();
    },
  };
}

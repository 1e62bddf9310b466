import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One numbered file of `sql/`. */
export interface Migration {
  version: number;
  file: string;
  sql: string;
}

/** Why migrations refused to run; nothing was changed. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * What a migration file may take from the environment of the process that applies it, written
 * `{{NAME}}` in the file: the currency that prices stored before they had one get. Values are
 * checked (src/versions/settings.ts), so they are safe in a quoted SQL literal.
 */
export interface MigrationParameters {
  readonly SVC_DEFAULT_CURRENCY: string;
}

export const DEFAULT_MIGRATION_PARAMETERS: MigrationParameters = { SVC_DEFAULT_CURRENCY: 'EUR' };

/** The text of a migration with its `{{NAME}}` placeholders filled in; an unknown one is refused. */
export function filledIn(migration: Migration, parameters: MigrationParameters): string {
  return migration.sql.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    if (!Object.hasOwn(parameters, name)) throw new MigrationError(`${migration.file} asks for {{${name}}}, which no setting fills in`);
    const value = parameters[name as keyof MigrationParameters];
    if (!/^[A-Za-z0-9_-]*$/.test(value)) throw new MigrationError(`${migration.file}: {{${name}}} would be ${JSON.stringify(value)}`);
    return value;
  });
}

export interface MigrationResult {
  from: number;
  to: number;
  applied: string[];
}

/** The package's own `sql/` folder of SQLite migrations (the same path from `src/db` and `dist/db`). */
export const DEFAULT_SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

/** The package's own PostgreSQL migrations, numbered like the SQLite ones. */
export const DEFAULT_POSTGRES_SQL_DIR = fileURLToPath(new URL('../../sql/postgres/', import.meta.url));

const MIGRATION_FILE = /^(\d+)_[\w.-]+\.sql$/;

/** Reads `sqlDir` and checks the files are numbered 1, 2, 3… with no gaps or duplicates. */
export function readMigrations(sqlDir: string): Migration[] {
  const files = readdirSync(sqlDir).filter((name) => name.endsWith('.sql')).sort();
  const migrations = files.map((file) => {
    const match = MIGRATION_FILE.exec(file);
    if (match === null) throw new MigrationError(`${file} is not named NNN_description.sql`);
    return { version: Number(match[1]), file, sql: '' };
  });
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version === 0) throw new MigrationError(`${migration.file}: migrations are numbered from 1`);
    if (migration.version === index) {
      throw new MigrationError(`duplicate migration number ${migration.version}: ${migration.file}`);
    }
    if (migration.version !== index + 1) {
      throw new MigrationError(`migration ${index + 1} is missing (next file is ${migration.file})`);
    }
  });
  return migrations.map((m) => ({ ...m, sql: readFileSync(join(sqlDir, m.file), 'utf8') }));
}

/** The schema version this build expects: the number of the newest file in `sqlDir`. */
export function latestVersion(sqlDir: string = DEFAULT_SQL_DIR): number {
  return readMigrations(sqlDir).at(-1)?.version ?? 0;
}

/** Refuses a database written by a newer build: its schema is unknown to this one. */
export function assertNotNewer(current: number, latest: number): void {
  if (current > latest) {
    throw new MigrationError(`database is at version ${current}, newer than the newest migration (${latest}); refusing to touch it`);
  }
}

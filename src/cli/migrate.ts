import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import { openDatabase, readSchemaVersionOf } from '../sqlite/database.ts';
import { assertNotNewer, DEFAULT_POSTGRES_SQL_DIR, DEFAULT_SQL_DIR, type MigrationParameters, type MigrationResult, migrate, readMigrations } from '../db/migrate.ts';
import { migratePostgres, postgresSchemaVersion } from '../postgres/migrate.ts';
import { openPostgres } from '../postgres/open.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import { configOrExit } from './config-or-exit.ts';

type Env = Record<string, string | undefined>;

// How long each migration's BEGIN IMMEDIATE waits for another process's write lock (a serving
// process holds it for a batch at a time) before the migration is refused.
const MIGRATE_BUSY_TIMEOUT_MS = 5_000;

/** The database migrate works on, whichever the engine. */
interface Target {
  /** How log lines name it: the SQLite path, or the URL with its password hidden. */
  name: string;
  sqlDir: string;
  /** The version applied so far; reading changes nothing. */
  current(): Promise<number>;
  apply(): Promise<MigrationResult>;
  close(): Promise<void>;
}

// What the migration files take from migrate's environment (the currency that rows stored before a price had one get).
const parametersOf = (config: Config): MigrationParameters => ({ SVC_DEFAULT_CURRENCY: config.versions.defaultCurrency });

function sqliteTarget(config: Config): Target {
  const path = config.dbPath;
  return {
    name: path,
    sqlDir: DEFAULT_SQL_DIR,
    // A missing file counts as version 0; reading never creates or converts it.
    current: async () => (existsSync(path) ? readSchemaVersionOf(path) : 0),
    async apply() {
      // A command-line tool: it may block while it waits for a serving process's write lock.
      const db = openDatabase(path, { create: true, durability: config.durability, busyTimeoutMs: MIGRATE_BUSY_TIMEOUT_MS });
      try {
        return migrate(db, DEFAULT_SQL_DIR, parametersOf(config));
      } finally {
        db.close();
      }
    },
    close: async () => {},
  };
}

function postgresTarget(config: Config): Target {
  const client = openPostgres(config.databaseUrl, { poolSize: 1, requestTimeoutMs: config.requestTimeoutMs });
  return {
    name: client.redactedUrl,
    sqlDir: DEFAULT_POSTGRES_SQL_DIR,
    current: () => postgresSchemaVersion(client),
    apply: () => migratePostgres(client, DEFAULT_POSTGRES_SQL_DIR, parametersOf(config)),
    close: () => client.end(),
  };
}

async function reportStatus(target: Target, logger: Logger): Promise<void> {
  const migrations = readMigrations(target.sqlDir);
  const current = await target.current();
  const latest = migrations.at(-1)?.version ?? 0;
  const pending = migrations.filter((m) => m.version > current).map((m) => m.file);
  const state = current > latest ? 'newer than this build' : pending.length === 0 ? 'current' : `${pending.length} pending`;
  logger.info(`database ${target.name} is at version ${current}, newest is ${latest}: ${state}`, { current, latest, pending });
}

async function applyPending(target: Target, logger: Logger): Promise<void> {
  // Checked before opening for writing, which would switch an old SQLite file to WAL: a refusal changes nothing.
  assertNotNewer(await target.current(), readMigrations(target.sqlDir).at(-1)?.version ?? 0);
  const result = await target.apply();
  logger.info(migrationSummary(target.name, result), result.applied.length === 0 ? { version: result.to } : { applied: result.applied });
}

/** The line migrate logs. Migrators started together take the lock file by file, so each may apply a share: it says so. */
export function migrationSummary(name: string, result: MigrationResult): string {
  if (result.applied.length === 0) return `database ${name} is already current (version ${result.to})`;
  const byOthers = result.to - result.from - result.applied.length;
  const shared = byOthers > 0 ? `; ${byOthers} of the files were applied meanwhile by another migrator` : '';
  return `migrated ${name} from version ${result.from} to ${result.to}${shared}`;
}

/** `node bin/migrate.js [--status]`; resolves to the exit status. */
export async function main(args: readonly string[], env: Env): Promise<number> {
  const config = configOrExit(env);
  const logger = createLogger(config.logLevel === 'silent' ? 'silent' : 'info');
  const unknown = args.filter((arg) => arg !== '--status');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}; usage: node bin/migrate.js [--status]\n`);
    return 2;
  }
  let target: Target | undefined;
  try {
    target = config.databaseUrl === '' ? sqliteTarget(config) : postgresTarget(config);
    // Reading the files first: gaps and duplicates are refused before the database is even opened.
    readMigrations(target.sqlDir);
    if (args.includes('--status')) await reportStatus(target, logger);
    else await applyPending(target, logger);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal(`migration refused: ${message}`);
    process.stderr.write(`migration refused: ${message}\n`);
    return 1;
  } finally {
    await target?.close().catch(() => {});
  }
}

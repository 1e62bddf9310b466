import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import { openDatabase, readSchemaVersionOf } from '../db/database.ts';
import { assertNotNewer, DEFAULT_SQL_DIR, type Migration, migrate, readMigrations } from '../db/migrate.ts';
import { createLogger, type Logger } from '../log/logger.ts';
import { configOrExit } from './config-or-exit.ts';

type Env = Record<string, string | undefined>;

// A missing file counts as version 0; reading never creates or converts it.
function currentVersion(dbPath: string): number {
  return existsSync(dbPath) ? readSchemaVersionOf(dbPath) : 0;
}

function reportStatus(config: Config, migrations: readonly Migration[], logger: Logger): void {
  const current = currentVersion(config.dbPath);
  const latest = migrations.at(-1)?.version ?? 0;
  const pending = migrations.filter((m) => m.version > current).map((m) => m.file);
  const state = current > latest ? 'newer than this build' : pending.length === 0 ? 'current' : `${pending.length} pending`;
  logger.info(`database ${config.dbPath} is at version ${current}, newest is ${latest}: ${state}`, { current, latest, pending });
}

function applyPending(config: Config, migrations: readonly Migration[], logger: Logger): void {
  // Checked before opening for writing, which would switch an old file to WAL: a refusal changes nothing.
  assertNotNewer(currentVersion(config.dbPath), migrations.at(-1)?.version ?? 0);
  const db = openDatabase(config.dbPath, { create: true, durability: config.durability });
  try {
    const result = migrate(db);
    if (result.applied.length === 0) {
      logger.info(`database ${config.dbPath} is already current (version ${result.to})`, { version: result.to });
    } else {
      logger.info(`migrated ${config.dbPath} from version ${result.from} to ${result.to}`, { applied: result.applied });
    }
  } finally {
    db.close();
  }
}

/** `node bin/migrate.js [--status]`; returns the exit status. */
export function main(args: readonly string[], env: Env): number {
  const config = configOrExit(env);
  const logger = createLogger(config.logLevel === 'silent' ? 'silent' : 'info');
  const unknown = args.filter((arg) => arg !== '--status');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}; usage: node bin/migrate.js [--status]\n`);
    return 2;
  }
  try {
    // Reading sql/ first: gaps and duplicates are refused before the database is even opened.
    const migrations = readMigrations(DEFAULT_SQL_DIR);
    if (args.includes('--status')) reportStatus(config, migrations, logger);
    else applyPending(config, migrations, logger);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal(`migration refused: ${message}`);
    process.stderr.write(`migration refused: ${message}\n`);
    return 1;
  }
}

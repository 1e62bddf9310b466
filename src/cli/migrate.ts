import { existsSync } from 'node:fs';
import { openDatabase, schemaVersion } from '../db/database.ts';
import { DEFAULT_SQL_DIR, migrate, readMigrations } from '../db/migrate.ts';
import { createLogger } from '../log/logger.ts';
import { configOrExit } from './serve.ts';

type Env = Record<string, string | undefined>;

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
    const migrations = readMigrations(DEFAULT_SQL_DIR);
    const latest = migrations.at(-1)?.version ?? 0;
    if (args.includes('--status')) {
      // A missing file is version 0: --status never creates it.
      let current = 0;
      if (existsSync(config.dbPath)) {
        const db = openDatabase(config.dbPath, { readOnly: true });
        current = schemaVersion(db);
        db.close();
      }
      const pending = migrations.filter((m) => m.version > current).map((m) => m.file);
      logger.info(`database ${config.dbPath} is at version ${current}, newest is ${latest}, ${pending.length} pending`, { current, latest, pending });
      return 0;
    }
    const db = openDatabase(config.dbPath, { create: true, durability: config.durability });
    try {
      const result = migrate(db);
      if (result.applied.length === 0) logger.info(`database ${config.dbPath} is already current (version ${result.to})`, { version: result.to });
      else logger.info(`migrated ${config.dbPath} from version ${result.from} to ${result.to}`, { applied: result.applied });
    } finally {
      db.close();
    }
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.fatal(`migration refused: ${message}`);
    process.stderr.write(`migration refused: ${message}\n`);
    return 1;
  }
}

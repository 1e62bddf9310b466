import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, defaultSqlDirFor } from '../../src/db/engine.ts';
import { migrate } from '../../src/db/migrate.ts';

/** Migrates `db` with the engine's migrations numbered below `number` only (`'010'`), as a database of the version before was. */
export async function migrateBefore(db: Database, number: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sql-'));
  try {
    const own = defaultSqlDirFor(db);
    for (const file of readdirSync(own).filter((name) => name.endsWith('.sql') && name < number)) cpSync(join(own, file), join(dir, file));
    await migrate(db, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

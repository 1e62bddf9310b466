// Seeded databases: migrated by the service's own bin/migrate.js, then filled in one statement.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ROOT } from './paths.js';

// One INSERT…SELECT over a recursive CTE: a million rows in a few seconds, one transaction.
const SEED = `
  INSERT INTO products (name, price_in_cents, status, created_at)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
  SELECT 'Product ' || i, (i * 7919) % 1000000, 1 + (i % 10 = 0), '2026-01-01T00:00:00.000Z' FROM n`;

/** Creates `<dir>/<name>.db`, migrated and holding `products` rows; returns its path. */
export function seededDatabase(dir, name, products) {
  const path = join(dir, `${name}.db`);
  const env = { PATH: process.env.PATH, SVC_DB_PATH: path, SVC_LOG_LEVEL: 'silent' };
  execFileSync(process.execPath, [join(ROOT, 'bin/migrate.js')], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const db = new DatabaseSync(path);
  db.prepare(SEED).run(products);
  // Everything in the main file, so a copy of the file alone is the whole database.
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return path;
}

/** A fresh copy of a seeded database for one server. */
export function copyOf(template, dir, name) {
  const path = join(dir, `${name}.db`);
  copyFileSync(template, path);
  return path;
}

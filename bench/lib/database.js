// Seeded SQLite databases: migrated by a build's own bin/migrate.js, then filled in one statement
// that fits the schema the migration made (version 1 has no updated_at; version 2 does; version 9
// adds price_currency, without a default on PostgreSQL).
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ROOT } from './paths.js';

// One INSERT…SELECT over a recursive CTE: a million rows in a few seconds, one transaction.
// updated_at equals created_at, as for a product never changed; version keeps its default (1).
const seedSql = (columns) => `
  INSERT INTO products (${columns.map(([name]) => name).join(', ')})
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
  SELECT ${columns.map(([, value]) => value).join(', ')} FROM n`;

// Each column the seed may fill, with its value for row `i` (SQL that SQLite and PostgreSQL both read).
const SEED_VALUES = {
  name: "'Product ' || i",
  price_in_cents: '(i * 7919) % 1000000',
  status: '1 + (i % 10 = 0)',
  price_currency: "'EUR'",
  created_at: "'2026-01-01T00:00:00.000Z'",
  updated_at: "'2026-01-01T00:00:00.000Z'",
};

/** The columns the seed fills, each with its value: the service's own, those of later schemas where `present`. */
export function seedColumns(present) {
  const optional = new Set(['updated_at', 'price_currency']);
  return Object.entries(SEED_VALUES).filter(([name]) => !optional.has(name) || present.includes(name));
}

/**
 * Creates `<dir>/<name>.db`, migrated by `migrate` (the checkout's bin/migrate.js unless given)
 * and holding `products` rows; returns its path.
 */
export function seededDatabase(dir, name, products, migrate = join(ROOT, 'bin/migrate.js')) {
  const path = join(dir, `${name}.db`);
  const env = { PATH: process.env.PATH, SVC_DB_PATH: path, SVC_LOG_LEVEL: 'silent' };
  execFileSync(process.execPath, [migrate], { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const db = new DatabaseSync(path);
  const present = db.prepare("SELECT name FROM pragma_table_info('products')").all().map((row) => row.name);
  db.prepare(seedSql(seedColumns(present))).run(products);
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

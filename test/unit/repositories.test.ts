import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/sqlite/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { keyRepositoryContract } from '../support/key-repository-contract.ts';
import { repositoryContract } from '../support/repository-contract.ts';

/** A migrated in-memory database whose prepare() calls are recorded. */
function recordingDatabase(): { db: DatabaseSync; prepared: string[] } {
  const db = openDatabase(':memory:');
  migrate(db);
  const prepared: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  };
  return { db, prepared };
}

repositoryContract('sqlite', async () => {
  const { db } = recordingDatabase();
  return { storage: createSqliteStorage(db), close: async () => db.close() };
});

keyRepositoryContract('sqlite', async () => {
  const { db } = recordingDatabase();
  return { storage: createSqliteStorage(db), close: async () => db.close() };
});

test('sqlite: every read, change and delete is a primary-key or index search, never a scan or an OFFSET', () => {
  const { db, prepared } = recordingDatabase();
  createSqliteStorage(db);
  const statements = prepared.filter((sql) => /\bWHERE\b/i.test(sql) && /\b(products|workspaces|api_keys)\b/.test(sql));
  // get and list of both resources, the list of one status, update and delete of both; get, list and revoke of keys
  assert.ok(statements.length >= 12, `prepared up front: ${statements.join('; ')}`);
  assert.ok(statements.some((sql) => /status = \?/.test(sql)), 'the status filter has its own statement');
  assert.ok(statements.some((sql) => /FROM api_keys WHERE id = \?/.test(sql)), 'keys are read by their public id');
  for (const sql of statements) {
    assert.doesNotMatch(sql, /\bOFFSET\b/i);
    const parameters = Array.from(sql.matchAll(/\?/g), () => 50);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters).map((row) => String(row['detail']));
    assert.ok(plan.some((detail) => /SEARCH \w+ USING (INTEGER PRIMARY KEY|INDEX \w+) \(/.test(detail)), `${sql}: ${plan.join('; ')}`);
    assert.ok(!plan.some((detail) => /^SCAN|TEMP B-TREE/.test(detail)), `${sql}: ${plan.join('; ')}`);
  }
  db.close();
});

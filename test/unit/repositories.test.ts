import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/sqlite/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createSqliteStorage } from '../../src/sqlite/storage.ts';
import { keyRepositoryContract } from '../support/key-repository-contract.ts';
import { repositoryContract } from '../support/repository-contract.ts';
import { ALL_RESOURCES, filtersOf, GADGETS_TABLE, repository } from '../support/resources.ts';

/** A migrated in-memory database, with the test resource's table, whose prepare() calls are recorded. */
function recordingDatabase(): { db: DatabaseSync; prepared: string[] } {
  const db = openDatabase(':memory:');
  migrate(db);
  db.exec(GADGETS_TABLE.sqlite);
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
  return { storage: createSqliteStorage(db, { resources: ALL_RESOURCES }), close: async () => db.close() };
}, ALL_RESOURCES);

keyRepositoryContract('sqlite', async () => {
  const { db } = recordingDatabase();
  return { storage: createSqliteStorage(db), close: async () => db.close() };
});

test('sqlite: every read, change and delete is a primary-key or index search, never a scan or an OFFSET', () => {
  const { db, prepared } = recordingDatabase();
  const storage = createSqliteStorage(db, { resources: ALL_RESOURCES });
  // A filtered page is prepared when it is first asked for: ask for each.
  for (const resource of ALL_RESOURCES) {
    for (const filter of filtersOf(resource)) repository(storage, resource).listBefore(5, 5, [filter]);
    repository(storage, resource).listBefore(5, 5, []);
  }
  const tables = [...ALL_RESOURCES.map((resource) => resource.plural), 'api_keys'].join('|');
  const statements = prepared.filter((sql) => /\bWHERE\b/i.test(sql) && new RegExp(`\\b(${tables})\\b`).test(sql));
  // get, a page, update and delete of every resource (and each filtered page); get, list and revoke of keys
  assert.ok(statements.length >= ALL_RESOURCES.length * 4 + 3, `prepared: ${statements.join('; ')}`);
  for (const resource of ALL_RESOURCES) {
    for (const field of resource.filters) {
      const column = resource.columns.find((c) => c.field === field)?.name ?? field;
      assert.ok(statements.some((sql) => sql.includes(`FROM ${resource.plural} WHERE ${column} = ?`)), `${resource.plural}: the ${field} filter has its own statement`);
    }
  }
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

import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProductRepository } from '../../src/products/repository.ts';
import { createWorkspaceRepository } from '../../src/workspaces/repository.ts';

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

interface Stored {
  id: number;
  name: string;
  createdAt: string;
}
interface RepositoryUnderTest {
  insert(name: string, createdAt: string): Stored;
  findById(id: number): Stored | undefined;
  listBefore(beforeId: number | null, limit: number): Stored[];
}

// The shared contract every list-and-get repository must pass (STYLE.md: one suite, many implementations).
const IMPLEMENTATIONS: Record<string, (db: DatabaseSync) => RepositoryUnderTest> = {
  products(db) {
    const repository = createProductRepository(db);
    return {
      insert: (name, createdAt) => repository.insert({ name, priceInCents: 1, status: 1, createdAt }),
      findById: (id) => repository.findById(id),
      listBefore: (beforeId, limit) => repository.listBefore(beforeId, limit),
    };
  },
  workspaces: (db) => {
    const repository = createWorkspaceRepository(db);
    return {
      insert: (name, createdAt) => repository.insert({ name, createdAt }),
      findById: (id) => repository.findById(id),
      listBefore: (beforeId, limit) => repository.listBefore(beforeId, limit),
    };
  },
};

const AT = '2026-11-22T09:30:00.000Z';

for (const [name, make] of Object.entries(IMPLEMENTATIONS)) {
  test(`${name} repository: insert assigns increasing ids and findById reads back what was stored`, () => {
    const { db } = recordingDatabase();
    const repository = make(db);
    const first = repository.insert('first \u{1F600}', AT);
    const second = repository.insert('second', AT);
    assert.ok(first.id >= 1 && second.id > first.id);
    assert.deepEqual(repository.findById(first.id), first);
    assert.equal(repository.findById(second.id + 1), undefined);
    db.close();
  });

  test(`${name} repository: listBefore is newest first, exclusive of beforeId, at most limit`, () => {
    const { db } = recordingDatabase();
    const repository = make(db);
    const ids = Array.from({ length: 10 }, (_, i) => repository.insert(`n${i}`, AT).id).reverse();
    assert.deepEqual(repository.listBefore(null, 3).map((row) => row.id), ids.slice(0, 3));
    assert.deepEqual(repository.listBefore(ids[2] ?? 0, 3).map((row) => row.id), ids.slice(3, 6));
    assert.deepEqual(repository.listBefore(ids[8] ?? 0, 5).map((row) => row.id), ids.slice(9));
    assert.deepEqual(repository.listBefore(ids[9] ?? 0, 5), []);
    assert.deepEqual(repository.listBefore(null, 100).map((row) => row.id), ids);
    db.close();
  });

  test(`${name} repository: every read is a primary-key search, never a scan or an OFFSET`, () => {
    const { db, prepared } = recordingDatabase();
    make(db);
    const reads = prepared.filter((sql) => /^\s*SELECT/i.test(sql));
    assert.ok(reads.length >= 2, 'get and list are prepared up front');
    for (const sql of reads) {
      assert.doesNotMatch(sql, /\bOFFSET\b/i);
      const parameters = Array.from(sql.matchAll(/\?/g), () => 50);
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters).map((row) => String(row['detail']));
      assert.ok(plan.some((detail) => /SEARCH \w+ USING INTEGER PRIMARY KEY/.test(detail)), `${sql}: ${plan.join('; ')}`);
      assert.ok(!plan.some((detail) => /^SCAN|TEMP B-TREE/.test(detail)), `${sql}: ${plan.join('; ')}`);
    }
    db.close();
  });
}

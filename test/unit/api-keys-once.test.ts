import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, wholeKeyMatch } from '../../src/api-keys.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// The key functions for embedders (src/api-keys.ts) build the storage they need once per database, not
// on every call: seen from outside as the statements a SQLite connection is asked to prepare.
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ engine: 'sqlite' });
});
after(() => database.drop());

// A connection that counts the statements prepared on it.
function countingPrepares(): { db: DatabaseSync; prepared: () => number } {
  const db = database.open() as DatabaseSync;
  const prepare = db.prepare.bind(db);
  let count = 0;
  Object.defineProperty(db, 'prepare', {
    value: (...args: Parameters<DatabaseSync['prepare']>) => {
      count += 1;
      return prepare(...args);
    },
  });
  return { db, prepared: () => count };
}

test('the storage of a database is built on the first call and reused by every later one', async () => {
  const { db, prepared } = countingPrepares();
  try {
    const first = await createApiKey(db, { name: 'first', scopes: ['read'] });
    const afterFirst = prepared();
    assert.ok(afterFirst > 0, 'the first call prepares the statements it needs');
    const second = await createApiKey(db, { name: 'second', scopes: ['write'] });
    assert.deepEqual((await listApiKeys(db)).keys.map((key) => key.id), [second.id, first.id]);
    assert.equal((await getApiKey(db, first.id))?.name, 'first');
    assert.equal(await wholeKeyMatch(db, first.id, first.key), 'same');
    assert.notEqual((await revokeApiKey(db, first.id))?.revokedAt, null);
    assert.equal(prepared(), afterFirst, 'no later call prepares anything again');
  } finally {
    db.close();
  }
});

test('a connection closed and opened again gets its storage anew; another connection has its own', async () => {
  const { db, prepared } = countingPrepares();
  const other = countingPrepares();
  try {
    const made = await createApiKey(db, { name: 'before reopening', scopes: ['read'] });
    const before = prepared();
    db.close();
    db.open();
    // The statements prepared before were finalized with the connection: using them would throw.
    assert.equal((await getApiKey(db, made.id))?.name, 'before reopening');
    assert.ok(prepared() > before, 'built anew on the reopened connection');
    assert.equal((await getApiKey(other.db, made.id))?.id, made.id);
    assert.ok(other.prepared() > 0, 'the other connection built its own');
  } finally {
    db.close();
    other.db.close();
  }
});

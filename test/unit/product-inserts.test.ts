import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SqlRunner } from '../../src/postgres/client.ts';
import { createProductInserts, INSERT_MANY, type NewProductRow } from '../../src/postgres/product-inserts.ts';

// PostgreSQL's group insert (src/postgres/product-inserts.ts) on a fake pool that records each
// statement's products and numbers them: how creates are grouped, and what happens when a group fails.

const at = '2026-11-26T10:00:00.000Z';
const product = (name: string): NewProductRow => ({ name, priceInCents: 100, status: 1, createdAt: at, updatedAt: at });

interface FakePool extends SqlRunner {
  statements: string[][];
}

/** A pool whose statements resolve when the test says; `refuse` decides the error of a statement, if any. */
function fakePool(refuse: (names: string[]) => Error | null = () => null): FakePool & { settle(): Promise<void> } {
  let nextId = 1;
  const pending: (() => void)[] = [];
  const statements: string[][] = [];
  return {
    statements,
    rows(sql, params) {
      assert.equal(sql, INSERT_MANY);
      const names = (params?.[0] ?? []) as string[];
      statements.push(names);
      return new Promise((resolve, reject) => {
        pending.push(() => {
          const error = refuse(names);
          if (error === null) resolve(names.map(() => [nextId++]));
          else reject(error);
        });
      });
    },
    run: () => Promise.reject(new Error('not used')),
    script: () => Promise.reject(new Error('not used')),
    // Answers every statement sent so far, then lets the answers' callbacks run.
    async settle() {
      while (pending.length > 0) {
        for (const answer of pending.splice(0)) answer();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

const withCode = (code: string): Error => Object.assign(new Error(`refused ${code}`), { code });

test('creates that come while a statement is under way go together in the next one, each getting its own id', async () => {
  const pool = fakePool();
  const inserts = createProductInserts(pool, { maxInFlight: 1 });
  const results = ['a', 'b', 'c', 'd', 'e'].map((name) => inserts.insert(product(name)));
  await pool.settle();
  assert.deepEqual(pool.statements, [['a'], ['b', 'c', 'd', 'e']]);
  assert.deepEqual((await Promise.all(results)).map((p) => [p.name, p.id, p.version]), [['a', 1, 1], ['b', 2, 1], ['c', 3, 1], ['d', 4, 1], ['e', 5, 1]]);
});

test('a group is at most maxBatch creates', async () => {
  const pool = fakePool();
  const inserts = createProductInserts(pool, { maxInFlight: 1, maxBatch: 2 });
  const results = ['a', 'b', 'c', 'd', 'e'].map((name) => inserts.insert(product(name)));
  await pool.settle();
  await Promise.all(results);
  assert.deepEqual(pool.statements, [['a'], ['b', 'c'], ['d', 'e']]);
});

test('when PostgreSQL refuses a group, each create runs again alone: only the one at fault fails', async () => {
  const pool = fakePool((names) => (names.includes('doomed') ? withCode('23514') : null));
  const inserts = createProductInserts(pool, { maxInFlight: 1 });
  const results = ['a', 'b', 'doomed', 'c'].map((name) => inserts.insert(product(name)).then((p) => p.name, (error: Error) => error.message));
  await pool.settle();
  assert.deepEqual(await Promise.all(results), ['a', 'b', 'refused 23514', 'c']);
  assert.deepEqual(pool.statements, [['a'], ['b', 'doomed', 'c'], ['b'], ['doomed'], ['c']]);
});

test('a group that may have committed (the connection lost, no SQLSTATE) is not run again: each of its creates gets the error', async () => {
  const lost = new Error('Connection terminated unexpectedly');
  const pool = fakePool((names) => (names.length > 1 ? lost : null));
  const inserts = createProductInserts(pool, { maxInFlight: 1 });
  const results = ['a', 'b', 'c'].map((name) => inserts.insert(product(name)).then((p) => p.name, (error: Error) => error));
  await pool.settle();
  assert.deepEqual(await Promise.all(results), ['a', lost, lost]);
  assert.deepEqual(pool.statements, [['a'], ['b', 'c']], 'nothing was sent again');
});

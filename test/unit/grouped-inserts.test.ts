import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SqlRunner } from '../../src/postgres/client.ts';
import { createGroupedInserts, insertManySql } from '../../src/postgres/grouped-inserts.ts';
import type { NewRow } from '../../src/resources/repository.ts';
import { GADGETS, validBody, NEWEST_VERSION } from '../support/resources.ts';

// PostgreSQL's group insert (src/postgres/grouped-inserts.ts) on a fake pool that records each
// statement's rows (by their first column: a gadget's weight) and numbers them: how creates are
// grouped, and what happens when a group fails. Any resource goes the same way; the test one has no name.

const at = '2026-11-26T10:00:00.000Z';
const INSERT_MANY = insertManySql(GADGETS);
const gadget = (weight: number): NewRow => ({ ...validBody(GADGETS, 0, NEWEST_VERSION), weightGrams: weight, createdAt: at, updatedAt: at });
const weightOf = (stored: Readonly<Record<string, unknown>>): number => stored['weightGrams'] as number;

interface FakePool extends SqlRunner {
  statements: number[][];
}

/** A pool whose statements resolve when the test says; `refuse` decides the error of a statement, if any. */
function fakePool(refuse: (weights: number[]) => Error | null = () => null): FakePool & { settle(): Promise<void> } {
  let nextId = 1;
  const pending: (() => void)[] = [];
  const statements: number[][] = [];
  return {
    statements,
    rows(sql, params) {
      assert.equal(sql, INSERT_MANY);
      const names = (params?.[0] ?? []) as number[];
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
  const inserts = createGroupedInserts(pool, GADGETS, { maxInFlight: 1 });
  const results = [1, 2, 3, 4, 5].map((weight) => inserts.insert(gadget(weight)));
  await pool.settle();
  assert.deepEqual(pool.statements, [[1], [2, 3, 4, 5]]);
  assert.deepEqual((await Promise.all(results)).map((g) => [weightOf(g), g.id, g.version]), [[1, 1, 1], [2, 2, 1], [3, 3, 1], [4, 4, 1], [5, 5, 1]]);
});

test('a group is at most maxBatch creates', async () => {
  const pool = fakePool();
  const inserts = createGroupedInserts(pool, GADGETS, { maxInFlight: 1, maxBatch: 2 });
  const results = [1, 2, 3, 4, 5].map((weight) => inserts.insert(gadget(weight)));
  await pool.settle();
  await Promise.all(results);
  assert.deepEqual(pool.statements, [[1], [2, 3], [4, 5]]);
});

test('when PostgreSQL refuses a group, each create runs again alone: only the one at fault fails', async () => {
  const doomed = 666;
  const pool = fakePool((weights) => (weights.includes(doomed) ? withCode('23514') : null));
  const inserts = createGroupedInserts(pool, GADGETS, { maxInFlight: 1 });
  const results = [1, 2, doomed, 3].map((weight) => inserts.insert(gadget(weight)).then(weightOf, (error: Error) => error.message));
  await pool.settle();
  assert.deepEqual(await Promise.all(results), [1, 2, 'refused 23514', 3]);
  assert.deepEqual(pool.statements, [[1], [2, doomed, 3], [2], [doomed], [3]]);
});

test('a group that may have committed (the connection lost, no SQLSTATE) is not run again: each of its creates gets the error', async () => {
  const lost = new Error('Connection terminated unexpectedly');
  const pool = fakePool((weights) => (weights.length > 1 ? lost : null));
  const inserts = createGroupedInserts(pool, GADGETS, { maxInFlight: 1 });
  const results = [1, 2, 3].map((weight) => inserts.insert(gadget(weight)).then(weightOf, (error: Error) => error));
  await pool.settle();
  assert.deepEqual(await Promise.all(results), [1, lost, lost]);
  assert.deepEqual(pool.statements, [[1], [2, 3]], 'nothing was sent again');
});

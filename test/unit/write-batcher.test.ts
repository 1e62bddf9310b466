import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/sqlite/database.ts';
import { StorageBusyError } from '../../src/db/errors.ts';
import { asClientError, problemFor } from '../../src/http/problem.ts';
import { TransactionTurnError } from '../../src/sqlite/turn.ts';
import { WriteBatcher } from '../../src/sqlite/write-batcher.ts';

type After = { after(fn: () => void): void };

function fileDatabase(t: After): { db: DatabaseSync; path: string; rows(): unknown[] } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-batcher-'));
  const path = join(dir, 'batch.db');
  const db = openDatabase(path, { create: true });
  db.exec('CREATE TABLE t (v TEXT NOT NULL) STRICT');
  t.after(() => {
    if (db.isOpen) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // Read by a connection of its own: only what was committed.
  const rows = (): unknown[] => {
    const reader = new DatabaseSync(path, { readOnly: true });
    try {
      return reader.prepare('SELECT v FROM t ORDER BY rowid').all().map((row) => row['v']);
    } finally {
      reader.close();
    }
  };
  return { db, path, rows };
}

// Another connection holding the file's write lock, as another process would.
function lockHolder(t: After, path: string): DatabaseSync {
  const other = new DatabaseSync(path);
  other.exec('BEGIN IMMEDIATE');
  t.after(() => {
    if (other.isTransaction) other.exec('ROLLBACK');
    other.close();
  });
  return other;
}

// Counts event-loop turns (a timer every 5 ms): a batcher that waited for the lock on the main
// thread would stop them.
function loopTurns(t: After): { count(): number; passed(turns: number): Promise<void> } {
  let count = 0;
  const waiting = new Set<{ at: number; resolve(): void }>();
  const timer = setInterval(() => {
    count++;
    for (const waiter of waiting) {
      if (count < waiter.at) continue;
      waiting.delete(waiter);
      waiter.resolve();
    }
  }, 5);
  t.after(() => clearInterval(timer));
  return {
    count: () => count,
    passed: (turns) => new Promise<void>((resolve) => void waiting.add({ at: count + turns, resolve })),
  };
}

test('writes queued in one turn share one commit, and each resolves only once it is visible to another connection', { timeout: 20_000 }, async (t) => {
  const { db, rows } = fileDatabase(t);
  const sizes: number[] = [];
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'), { onCommit: (size) => sizes.push(size) });
  const seenAtResolve = await Promise.all(Array.from({ length: 5 }, (_, i) => batcher.run(async (tx) => tx.run(`v${i}`)).then(() => rows().length)));
  assert.deepEqual(sizes, [5]);
  assert.deepEqual(seenAtResolve, [5, 5, 5, 5, 5]);
});

test('a failing write is rolled back alone; the others in its batch commit', { timeout: 20_000 }, async (t) => {
  const { db, rows } = fileDatabase(t);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'));
  const results = await Promise.allSettled([
    batcher.run(async (tx) => tx.run('kept 1')),
    batcher.run(async (tx) => {
      tx.run('written, then undone');
      throw new Error('rule broken after a write');
    }),
    batcher.run(async (tx) => tx.run('kept 2')),
  ]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.match(String((results[1] as PromiseRejectedResult).reason), /rule broken after a write/);
  assert.deepEqual(rows(), ['kept 1', 'kept 2']);
});

test('a closed database rejects every queued write instead of leaving them pending', { timeout: 20_000 }, async (t) => {
  const { db } = fileDatabase(t);
  const batcher = new WriteBatcher(db, {});
  const pending = [batcher.run(async () => 1), batcher.run(async () => 2)];
  db.close();
  for (const write of pending) await assert.rejects(write, /not open/);
});

test('a write waits for another connection\'s lock without blocking the event loop, and commits once it is free', { timeout: 20_000 }, async (t) => {
  const { db, path, rows } = fileDatabase(t);
  const other = lockHolder(t, path);
  const turns = loopTurns(t);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'), { lockWaitMs: 5_000 });
  let settled = false;
  const write = outcomeOf(batcher.run(async (tx) => tx.run('waited')).finally(() => (settled = true)));
  await turns.passed(10);
  assert.equal(settled, false, 'the write waits while the lock is held');
  assert.equal(db.isTransaction, false, 'no transaction is open while it waits');
  other.exec('ROLLBACK');
  const releasedAt = performance.now();
  assert.equal((await write).status, 'fulfilled');
  // Its tries go on while it waits: it commits soon after the lock is free (generous for a loaded machine).
  assert.ok(performance.now() - releasedAt < 1_000, `committed ${Math.round(performance.now() - releasedAt)} ms after the lock was free`);
  assert.deepEqual(rows(), ['waited']);
});

test('a write lock held past the wait is StorageBusyError, and nothing is written', { timeout: 20_000 }, async (t) => {
  const { db, path, rows } = fileDatabase(t);
  lockHolder(t, path);
  const turns = loopTurns(t);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'), { lockWaitMs: 200 });
  const startedAt = performance.now();
  const before = turns.count();
  await assert.rejects(batcher.run(async (tx) => tx.run('never')), StorageBusyError);
  assert.ok(performance.now() - startedAt >= 190, 'it waited for the lock as long as it was told');
  assert.ok(turns.count() > before + 5, 'the event loop turned while it waited');
  assert.deepEqual(rows(), []);
});

test('each write waits for the lock as long as it was told from when it was queued, not from when the first began to wait', { timeout: 20_000 }, async (t) => {
  const { db, path, rows } = fileDatabase(t);
  const other = lockHolder(t, path);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'), { lockWaitMs: 1_000 });
  const first = outcomeOf(batcher.run(async (tx) => tx.run('first')));
  await sleep(500);
  const second = outcomeOf(batcher.run(async (tx) => tx.run('second')));
  assert.ok(rejectionOf(await first) instanceof StorageBusyError);
  // The second has waited about 500 ms of its 1,000: the lock comes free in time for it.
  other.exec('ROLLBACK');
  assert.equal((await second).status, 'fulfilled');
  assert.deepEqual(rows(), ['second']);
});

test('writes queued while one waits for the lock wait their turn: one BEGIN at a time, one batch once it is free', { timeout: 20_000 }, async (t) => {
  const { db, path, rows } = fileDatabase(t);
  const other = lockHolder(t, path);
  const sizes: number[] = [];
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'), { onCommit: (size) => sizes.push(size) });
  const first = batcher.run(async (tx) => tx.run('first'));
  await sleep(30);
  // A later turn: a flush of its own would start beside the one that waits.
  const second = batcher.run(async (tx) => tx.run('second'));
  await sleep(30);
  other.exec('ROLLBACK');
  await Promise.all([first, second]);
  // Longer than the longest wait between tries: a second loop of tries would have committed by now.
  await sleep(150);
  assert.deepEqual(sizes, [2]);
  assert.deepEqual(rows(), ['first', 'second']);
});

test('code that runs once a write has resolved never runs inside the next batch\'s transaction', { timeout: 20_000 }, async (t) => {
  const { db, rows } = fileDatabase(t);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'), { maxBatch: 2 });
  // What a request does after its write: a few steps, then a read on the same connection. It must
  // see no transaction.
  const afterTheWrite = async (): Promise<boolean> => {
    for (let step = 0; step < 10; step++) await null;
    return db.isTransaction;
  };
  const seen = await Promise.all(Array.from({ length: 7 }, (_, i) => batcher.run(async (tx) => tx.run(`v${i}`)).then(afterTheWrite)));
  assert.deepEqual(seen, Array(7).fill(false));
  assert.equal(rows().length, 7);
});

test('a BEGIN that fails rolls back nothing it did not begin: a transaction open on the connection is left to its owner', { timeout: 20_000 }, async (t) => {
  const { db, rows } = fileDatabase(t);
  db.exec('BEGIN');
  db.exec("INSERT INTO t (v) VALUES ('theirs')");
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'));
  await assert.rejects(batcher.run(async (tx) => tx.run('mine')), /within a transaction/);
  assert.equal(db.isTransaction, true, 'their transaction is still open');
  db.exec('COMMIT');
  assert.deepEqual(rows(), ['theirs']);
});

// The outcome of `promise`, watched from now on (a rejection is never left unhandled meanwhile).
function outcomeOf(promise: Promise<unknown>): Promise<PromiseSettledResult<unknown>> {
  return Promise.allSettled([promise]).then(([outcome]) => outcome as PromiseSettledResult<unknown>);
}

function rejectionOf(outcome: PromiseSettledResult<unknown>): unknown {
  assert.equal(outcome.status, 'rejected');
  return (outcome as PromiseRejectedResult).reason;
}

test('works that await a timer or I/O fail loudly, with their writes undone; the others of their batch, and the next batch, commit', { timeout: 20_000 }, async (t) => {
  const { db, rows } = fileDatabase(t);
  const batcher = new WriteBatcher(db, db.prepare('INSERT INTO t (v) VALUES (?)'));
  const batch = [
    batcher.run(async (tx) => tx.run('kept 1')),
    batcher.run(async (tx) => {
      tx.run('before the timer');
      await sleep(20);
      return 'never reached in its turn';
    }),
    batcher.run(async (tx) => tx.run('kept 2')),
    batcher.run(async (tx) => {
      tx.run('before the I/O');
      await readFile(import.meta.filename);
    }),
    batcher.run(async (tx) => tx.run('kept 3')),
  ].map(outcomeOf);
  await new Promise((resolve) => setImmediate(resolve));
  const next = outcomeOf(batcher.run(async (tx) => tx.run('next turn')));
  const results = await Promise.all([...batch, next]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  for (const stalled of [results[1], results[3]]) {
    const reason = rejectionOf(stalled as PromiseSettledResult<unknown>);
    assert.ok(reason instanceof TransactionTurnError, String(reason));
    assert.match(reason.message, /await/);
    // A bug to fix, not the client's fault nor a busy database: a 500, logged as unexpected.
    assert.equal(problemFor(asClientError(reason), '/api/products', 'req-1').status, 500);
  }
  assert.deepEqual(rows(), ['kept 1', 'kept 2', 'kept 3', 'next turn']);
  assert.equal(db.isTransaction, false);
});

test('a work that uses its repositories after its turn gets an error and writes nothing', { timeout: 20_000 }, async (t) => {
  const { db, rows } = fileDatabase(t);
  const batcher = new WriteBatcher(db, { insert: db.prepare('INSERT INTO t (v) VALUES (?)') });
  const lateCalls: Promise<PromiseSettledResult<unknown>>[] = [];
  // One awaits a timer and writes after it; one returns at once but leaves a write for later.
  const stalled = outcomeOf(
    batcher.run(async (tx) => {
      await sleep(10);
      lateCalls.push(outcomeOf(Promise.resolve().then(() => tx.insert.run('after the timer'))));
    }),
  );
  const leftBehind = batcher.run(async (tx) => {
    const insert = tx.insert;
    lateCalls.push(outcomeOf(sleep(10).then(() => insert.run('left for later'))));
  });
  assert.ok(rejectionOf(await stalled) instanceof TransactionTurnError);
  await leftBehind;
  while (lateCalls.length < 2) await sleep(5);
  for (const call of await Promise.all(lateCalls)) assert.ok(rejectionOf(call) instanceof TransactionTurnError);
  assert.equal(db.isTransaction, false);
  assert.deepEqual(rows(), []);
});

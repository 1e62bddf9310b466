import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { isDatabaseBusy } from '../../src/sqlite/busy.ts';
import { postJson, startTestServer } from '../support/server.ts';
import { PRODUCT } from './support.ts';

test('a write lock held past the busy timeout by another connection is 503 with Retry-After, never a 500', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  // Another writer (a backup, a shell, a stuck process) holds the write lock for longer than 5 s.
  const other = new DatabaseSync(server.dbPath);
  other.exec('BEGIN IMMEDIATE');
  const release = setTimeout(() => other.exec('ROLLBACK'), 7_000);
  t.after(() => {
    clearTimeout(release);
    if (other.isTransaction) other.exec('ROLLBACK');
    other.close();
  });
  const response = await postJson(`${server.url}/api/products`, PRODUCT);
  assert.equal(response.status, 503);
  assert.equal(response.headers.get('retry-after'), '1');
  const problem = (await response.json()) as { code: string; detail: string };
  assert.equal(problem.code, 'unavailable');
  assert.doesNotMatch(problem.detail, /locked|sqlite/i);
  // Operators learn why from the log, once every few seconds however many requests meet it.
  await new Promise((resolve) => setImmediate(resolve));
  const warnings = server.logs.filter((line) => line['msg'] === 'database unavailable or busy; answering 503');
  assert.equal(warnings.length, 1);
  assert.match(String(warnings[0]?.['reason']), /locked/);
  other.exec('ROLLBACK');
  const retry = await postJson(`${server.url}/api/products`, PRODUCT);
  assert.equal(retry.status, 201);
  await retry.arrayBuffer();
});

test('SQLITE_BUSY and its extended codes are recognised, other errors are not', () => {
  assert.equal(isDatabaseBusy(Object.assign(new Error('database is locked'), { errcode: 5 })), true);
  assert.equal(isDatabaseBusy(Object.assign(new Error('busy snapshot'), { errcode: 517 })), true);
  assert.equal(isDatabaseBusy(Object.assign(new Error('constraint'), { errcode: 19 })), false);
  assert.equal(isDatabaseBusy(new Error('plain')), false);
  assert.equal(isDatabaseBusy(null), false);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson } from '../support/server.ts';
import type { TestDatabase } from '../support/test-database.ts';
import { PRODUCT, type ServeProcess, startTwoProcesses, type TwoProcesses } from './support.ts';

// Two independent processes on one database (a SQLite file, or one PostgreSQL database), as two
// workers, or two hosts on shared storage or on one PostgreSQL server, would be.
let two: TwoProcesses;
let database: TestDatabase;
let servers: ServeProcess[] = [];
let urls: string[] = [];

before(async () => {
  two = await startTwoProcesses();
  ({ database, servers, urls } = two);
});
after(() => two.stop());

const productCount = (): Promise<number> => database.countRows('products');

test('the same key sent to both processes at once creates one product and both get the same answer', async () => {
  for (let round = 0; round < 10; round++) {
    const before = await productCount();
    const key = `two-processes-${round}`;
    const body = { ...PRODUCT, name: `Lamp ${round}` };
    const responses = await Promise.all(urls.map((url) => postJson(`${url}/api/products`, body, { 'idempotency-key': key })));
    const texts = await Promise.all(responses.map((response) => response.text()));
    assert.deepEqual(responses.map((r) => r.status), [201, 201]);
    assert.equal(texts[0], texts[1]);
    assert.equal(responses[0]?.headers.get('location'), responses[1]?.headers.get('location'));
    // Exactly one of them made it; the other found it stored, whichever lost the race for the lock.
    const replayed = responses.map((r) => r.headers.get('idempotent-replayed'));
    assert.deepEqual([...replayed].sort(), ['true', null].sort());
    assert.equal(await productCount(), before + 1);
  }
});

test('concurrent writers in two processes never surface "database is locked"', async () => {
  const before = await productCount();
  const perProcess = 60;
  const sends = urls.flatMap((url) =>
    Array.from({ length: perProcess }, (_, i) => postJson(`${url}/api/products`, { ...PRODUCT, name: `Concurrent ${i}` })),
  );
  const responses = await Promise.all(sends);
  await Promise.all(responses.map((response) => response.arrayBuffer()));
  assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([201]));
  assert.equal(await productCount(), before + 2 * perProcess);
  const errors = servers.flatMap((server) => server.lines.filter((line) => Number(line['level']) >= 50));
  assert.deepEqual(errors, []);
});

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import { migratedDatabaseFile, postJson } from '../support/server.ts';
import { PRODUCT, type ServeProcess, spawnServe, urlOf } from './support.ts';

// Two independent processes on one database file, as two workers or two hosts on shared storage would be.
let dir: string;
let dbPath: string;
let servers: ServeProcess[] = [];
let urls: string[] = [];

before(async () => {
  ({ dir, dbPath } = migratedDatabaseFile());
  servers = [spawnServe({ SVC_DB_PATH: dbPath }), spawnServe({ SVC_DB_PATH: dbPath })];
  urls = await Promise.all(servers.map(urlOf));
});
after(() => {
  servers.forEach((server) => server.kill());
  rmSync(dir, { recursive: true, force: true });
});

const productCount = (): number => {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(db.prepare('SELECT count(*) AS n FROM products').get()?.['n']);
  } finally {
    db.close();
  }
};

test('the same key sent to both processes at once creates one product and both get the same answer', async () => {
  for (let round = 0; round < 10; round++) {
    const before = productCount();
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
    assert.equal(productCount(), before + 1);
  }
});

test('concurrent writers in two processes never surface "database is locked"', async () => {
  const before = productCount();
  const perProcess = 60;
  const sends = urls.flatMap((url) =>
    Array.from({ length: perProcess }, (_, i) => postJson(`${url}/api/products`, { ...PRODUCT, name: `Concurrent ${i}` })),
  );
  const responses = await Promise.all(sends);
  await Promise.all(responses.map((response) => response.arrayBuffer()));
  assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([201]));
  assert.equal(productCount(), before + 2 * perProcess);
  const errors = servers.flatMap((server) => server.lines.filter((line) => Number(line['level']) >= 50));
  assert.deepEqual(errors, []);
});

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/api-keys.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { type Answer, errorLines, migratedDatabase, type Nodes, send, startNodes } from './support.ts';

// With SVC_AUTH=keys, a key read from PostgreSQL is trusted for 2 s; after that it must be read again.
// While PostgreSQL is away that read fails, and the request is 503, never let through on the old read
// and never a 401 or 500; once PostgreSQL is back, the key works again without a restart. The requests
// go to a path that does not exist: a caller the check lets through gets 404 there without any database
// work, so what is seen is the key check's own answer.
const ENV = { SVC_AUTH: 'keys', SVC_REQUEST_TIMEOUT_MS: '6000', SVC_HEADERS_TIMEOUT_MS: '5000' };

describe('API keys while PostgreSQL is away', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let nodes: Nodes;
  let key = '';
  before(async () => {
    cluster = await startPostgres();
    const url = await migratedDatabase(cluster);
    const db = openPostgres(url, { poolSize: 1 });
    try {
      key = (await createApiKey(db, { name: 'reader', scopes: ['read'] })).key;
    } finally {
      await db.end();
    }
    nodes = await startNodes(url, 1, ENV);
  });
  after(async () => {
    nodes?.kill();
    await cluster?.stop();
  });

  const knock = (): Promise<Answer> => send(`${nodes.urls[0]}/api/nowhere`, { headers: { authorization: `Bearer ${key}` } }, 15_000);

  test('a key whose cached read is too old gets 503 while the database is away, and works again once it is back', async () => {
    assert.equal((await knock()).status, 404);
    await cluster.stopServer('fast');
    const down: Answer[] = [];
    const deadline = Date.now() + 30_000;
    // Answers from memory (404: let through, within 2 s of the last read) until the read is too old, then 503.
    while (down.filter((answer) => answer.status === 503).length < 3) {
      down.push(await knock());
      assert.ok(Date.now() < deadline, `never refused: ${down.map((answer) => answer.status).join()}`);
      await sleep(100);
    }
    const statuses = down.map((answer) => answer.status);
    assert.deepEqual(statuses.filter((status) => status !== 404 && status !== 503), [], 'never a 401, a 500 or a hang');
    assert.equal(statuses[0], 404, 'the first answers came from memory');
    assert.deepEqual(statuses.slice(statuses.indexOf(503)).filter((status) => status !== 503), [], 'once refused, never let through on the old read');
    assert.ok(down.find((answer) => answer.status === 503)?.headers.get('retry-after'), 'a 503 says when to retry');
    await cluster.startServer();
    const back = Date.now() + 30_000;
    let answer = await knock();
    while (answer.status !== 404) {
      assert.equal(answer.status, 503);
      assert.ok(Date.now() < back, 'the key never worked again');
      await sleep(100);
      answer = await knock();
    }
    assert.deepEqual(errorLines(nodes.servers).filter((line) => line['msg'] !== 'request completed'), [], 'no unexpected error');
  });
});

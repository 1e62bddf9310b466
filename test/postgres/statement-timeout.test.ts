import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgres } from '../../src/postgres/open.ts';
import { PRODUCT } from '../ops/support.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { type Answer, errorLines, migratedDatabase, type Nodes, post, send, startNodes } from './support.ts';

// A statement the server itself cuts off (statement_timeout, SQLSTATE 57014) is PostgreSQL unable to
// serve now: 503 with Retry-After, never a 500. The service sets statement_timeout to a third of the
// request timeout (2 s here) and gives up on a silent connection a second later, so a statement that
// waits for a lock another session holds meets the server's timeout first, not the client's.
const ENV = { SVC_REQUEST_TIMEOUT_MS: '6000', SVC_HEADERS_TIMEOUT_MS: '5000' };

describe('a statement cut off by the server\'s statement_timeout', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let url = '';
  let nodes: Nodes;
  before(async () => {
    cluster = await startPostgres();
    url = await migratedDatabase(cluster);
    nodes = await startNodes(url, 1, ENV);
  });
  after(async () => {
    nodes?.kill();
    await cluster?.stop();
  });

  /** Runs `during` while another session holds an ACCESS EXCLUSIVE lock on the products table. */
  async function withProductsLocked<T>(during: () => Promise<T>): Promise<T> {
    const other = openPostgres(url, { poolSize: 1, requestTimeoutMs: 60_000 });
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = (): void => {};
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const transaction = other.transaction(async (tx) => {
      await tx.run('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      locked();
      await released;
    });
    try {
      await Promise.race([holding, transaction]);
      return await during();
    } finally {
      release();
      await transaction;
      await other.end();
    }
  }

  const assertUnavailable = (answer: Answer, what: string): void => {
    assert.equal(answer.status, 503, `${what}: ${answer.status} ${answer.failure ?? answer.body}`);
    assert.equal(answer.headers.get('retry-after'), '2', what);
    assert.equal((JSON.parse(answer.body) as { code: string }).code, 'unavailable', what);
  };

  test('a read and a write that wait on a lock past statement_timeout are 503 unavailable, then served once it is gone', async () => {
    const base = nodes.urls[0] ?? '';
    const [read, write] = await withProductsLocked(async (): Promise<[Answer, Answer]> => [
      await send(`${base}/api/products`, {}, 15_000),
      await post(`${base}/api/products`, PRODUCT, {}, 15_000),
    ]);
    assertUnavailable(read, 'the read');
    assertUnavailable(write, 'the write');
    // The server's own timeout, not the client giving up on a silent connection.
    const warning = nodes.servers[0]?.lines.find((line) => line['msg'] === 'database unavailable or busy; answering 503');
    assert.match(String(warning?.['reason']), /canceling statement due to statement timeout/);
    assert.deepEqual(errorLines(nodes.servers).filter((line) => line['msg'] !== 'request completed'), [], 'no unexpected error');
    assert.equal((await send(`${base}/api/products`)).status, 200);
    assert.equal((await post(`${base}/api/products`, PRODUCT)).status, 201);
  });
});

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

describe('PostgreSQL timeouts: a statement the server cuts off, and the caps on every wait', { skip: skipWithoutPostgres() }, () => {
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

  // docs/postgresql.md, Outages: a statement gets a third of the request timeout but at most 10 s, and
  // the client waits at most 1 s more on a silent connection. With SVC_REQUEST_TIMEOUT_MS=60000 both
  // caps bind: a frozen server costs a request about 11 s, where a third and a sixth would be 30 s.
  test('with a long request timeout the caps bind: a frozen PostgreSQL is 503 after about 11 s, not 30', { timeout: 60_000 }, async () => {
    const slow = await startNodes(url, 1, { SVC_REQUEST_TIMEOUT_MS: '60000', SVC_HEADERS_TIMEOUT_MS: '5000' });
    let frozen: number[] = [];
    try {
      const base = slow.urls[0] ?? '';
      // A connection open and idle in the pool, so the request sends its statement and meets silence.
      assert.equal((await send(`${base}/api/products`)).status, 200);
      frozen = cluster.processIds();
      frozen.forEach((pid) => signal(pid, 'SIGSTOP'));
      const answer = await send(`${base}/api/products`, {}, 40_000);
      assertUnavailable(answer, 'a read on a frozen server');
      // 11 s and some for a loaded machine; without the caps it would be 20 s or more.
      assert.ok(answer.ms >= 10_000 && answer.ms < 16_000, `answered after ${Math.round(answer.ms)} ms`);
    } finally {
      frozen.forEach((pid) => signal(pid, 'SIGCONT'));
      slow.kill();
    }
  });
});

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // the process ended meanwhile
  }
}

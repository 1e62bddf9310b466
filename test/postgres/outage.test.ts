import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, type TestContext, test } from 'node:test';
import { StorageUnavailableError } from '../../src/db/errors.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { PRODUCT } from '../ops/support.ts';
import { type PostgresCluster, skipWithoutPostgres, startPostgres } from '../support/postgres.ts';
import { assertNothingLost, isUnavailable, type Load, type Sent, startLoad } from './load.ts';
import { errorLines, migratedDatabase, type Nodes, post, send, startNodes } from './support.ts';

// A small request timeout keeps the test short; the database timeouts are fractions of it (connect
// 1 s, statement 2 s, client-side query timeout 3 s), so every answer must come well within it.
const TIMEOUT_MS = 6_000;
const ENV = { SVC_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), SVC_HEADERS_TIMEOUT_MS: '5000' };
// Longer than any answer may take: a request still open then is a hang, recorded as status 0.
const GUARD_MS = TIMEOUT_MS + 5_000;
const DOWN = { status: 2, checks: { database: 2, schema: 2 } };
const UP = { status: 1, checks: { database: 1, schema: 1 } };

// Two serve processes under a steady load of creates and reads while PostgreSQL stops, crashes or
// freezes, then comes back: they answer 503 unavailable meanwhile, recover by themselves (the same
// processes), and lose no write they acknowledged.
describe('PostgreSQL unreachable under load, then back', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  let url: string;
  let nodes: Nodes;
  const extra: Nodes[] = [];
  before(async () => {
    cluster = await startPostgres();
    url = await migratedDatabase(cluster);
    nodes = await startNodes(url, 2, ENV);
  });
  after(async () => {
    [nodes, ...extra].forEach((started) => started?.kill());
    await cluster?.stop();
  });

  /** Polls readiness until it answers `status`; checks its body; resolves with when that was seen. */
  async function readinessTurns(base: string, status: 200 | 503): Promise<number> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await send(`${base}/api/ping`, {}, GUARD_MS);
      assert.ok(answer.status === 200 || answer.status === 503, `readiness answered ${answer.status} ${answer.failure ?? answer.body}`);
      assert.ok(answer.ms < TIMEOUT_MS, `readiness answered after ${Math.round(answer.ms)} ms`);
      if (answer.status === status) {
        assert.deepEqual(JSON.parse(answer.body), status === 200 ? UP : DOWN);
        return performance.now();
      }
      if (Date.now() > deadline) throw new Error(`readiness of ${base} never answered ${status}`);
      await sleep(25);
    }
  }

  const creates = (node: number, since: number, match: (sent: Sent) => boolean) => (sent: Sent) =>
    sent.node === node && sent.kind === 'create' && sent.sentAt >= since && match(sent);
  const acknowledged = (sent: Sent): boolean => sent.answer.status === 201;

  /** Load on both nodes; `goAway` takes PostgreSQL away, `comeBack` brings it back; returns the load and figures. */
  async function outage(t: TestContext, label: string, goAway: () => Promise<void>, comeBack: () => Promise<void>): Promise<Load> {
    const load = startLoad(nodes.urls, { guardMs: GUARD_MS, prefix: label });
    try {
      for (const node of [0, 1]) await load.until(`node ${node} creates before`, 4, creates(node, 0, acknowledged));
      const leaving = performance.now();
      await goAway();
      const gone = performance.now();
      const detected = await Promise.all(nodes.urls.map((base) => readinessTurns(base, 503)));
      for (const node of [0, 1]) await load.until(`node ${node} refuses writes`, 3, creates(node, gone, (sent) => isUnavailable(sent.answer)));
      const returning = performance.now();
      await comeBack();
      const back = performance.now();
      const ready = await Promise.all(nodes.urls.map((base) => readinessTurns(base, 200)));
      for (const node of [0, 1]) await load.until(`node ${node} creates after`, 5, creates(node, back, acknowledged));
      const firstWrite = [0, 1].map((node) => Math.min(...load.created(node, back).map((sent) => sent.sentAt + sent.answer.ms)) - back);
      const ms = (value: number): string => `${Math.round(value)} ms`;
      t.diagnostic(`${label}: taking PostgreSQL away took ${ms(gone - leaving)}; readiness 503 ${detected.map((at) => ms(at - gone)).join(' / ')} after`);
      t.diagnostic(`${label}: bringing it back took ${ms(back - returning)}; readiness 200 ${ready.map((at) => ms(at - back)).join(' / ')}, first 201 ${firstWrite.map(ms).join(' / ')} after`);
    } finally {
      await load.stop();
    }
    const slowest = Math.max(...load.sent.map((sent) => sent.answer.ms));
    const refused = load.sent.filter((sent) => isUnavailable(sent.answer)).length;
    t.diagnostic(`${label}: ${load.sent.length} requests, ${refused} answered 503, slowest answer ${Math.round(slowest)} ms`);
    await assertNothingLost(cluster, url, load, TIMEOUT_MS);
    // docs/postgresql.md, Outages: unreachable is 503 unavailable with Retry-After: 2, exactly (1 means busy).
    const refusals = load.sent.filter((sent) => sent.answer.status === 503);
    assert.deepEqual(new Set(refusals.map((sent) => sent.answer.headers.get('retry-after'))), new Set(['2']));
    // The same processes recovered: none exited, none logged an unexpected error (5xx access lines are 503s).
    for (const server of nodes.servers) assert.equal(server.child.exitCode ?? server.child.signalCode, null);
    assert.deepEqual(errorLines(nodes.servers).filter((line) => (line['res'] as { statusCode?: number } | undefined)?.statusCode !== 503), []);
    return load;
  }

  test('PostgreSQL stopped (pg_ctl stop -m fast), then started: 503 unavailable meanwhile, then recovery without a restart', async (t) => {
    await outage(t, 'fast', () => cluster.stopServer('fast'), () => cluster.startServer());
  });

  test('PostgreSQL crashed (pg_ctl stop -m immediate), then started with crash recovery: no acknowledged write is lost', async (t) => {
    await outage(t, 'immediate', () => cluster.stopServer('immediate'), () => cluster.startServer());
  });

  test('PostgreSQL frozen (SIGSTOP, like a silent network): every request still answered within the request timeout', async (t) => {
    let frozen: number[] = [];
    const thaw = async (): Promise<void> => {
      frozen.forEach((pid) => signal(pid, 'SIGCONT'));
      frozen = [];
    };
    // Every connection of both pools open and idle first, so requests during the freeze take
    // connections that look healthy and hang on them, rather than failing to connect.
    const warm = await Promise.all(nodes.urls.flatMap((base) => Array.from({ length: 10 }, () => post(`${base}/api/products`, { ...PRODUCT, name: 'Warm-up' }))));
    assert.deepEqual(new Set(warm.map((answer) => answer.status)), new Set([201]));
    try {
      await outage(
        t,
        'frozen',
        async () => {
          frozen = cluster.processIds();
          frozen.forEach((pid) => signal(pid, 'SIGSTOP'));
        },
        thaw,
      );
    } finally {
      await thaw();
    }
  });

  test('a connection terminated between two statements of a transaction: the transaction rejects as unavailable, nothing crashes, the pool recovers', async () => {
    // The pool watches idle connections only; an 'error' event of one checked out for a transaction,
    // with no listener, would be uncaught and end the process (node:test reports it as a failure).
    const client = openPostgres(url, { poolSize: 1 });
    try {
      const transaction = client.transaction(async (tx) => {
        await tx.rows('SELECT 1');
        await cluster.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' AND usename = 'svc'", 'postgres');
        // Let the termination message arrive while no statement runs.
        await sleep(200);
        await tx.run("INSERT INTO products (name, price_in_cents, status, created_at, updated_at) VALUES ('never', 1, 1, now(), now())");
      });
      await assert.rejects(transaction, StorageUnavailableError);
      assert.deepEqual(await client.rows("SELECT count(*)::int FROM products WHERE name = 'never'"), [[0]]);
    } finally {
      await client.end();
    }
  });

  test('one node SIGKILLed under load: every write it acknowledged is stored, and the other node keeps serving', async (t) => {
    const pair = await startNodes(url, 2, ENV);
    extra.push(pair);
    const load = startLoad(pair.urls, { guardMs: GUARD_MS, prefix: 'killed' });
    let killedAt = Infinity;
    try {
      await load.until('node 0 creates', 10, creates(0, 0, acknowledged));
      killedAt = performance.now();
      pair.servers[0]?.kill();
      await pair.servers[0]?.exited;
      await load.until('node 1 creates after the kill', 10, creates(1, killedAt, acknowledged));
    } finally {
      await load.stop();
    }
    const fromKilled = load.created(0);
    t.diagnostic(`the killed node acknowledged ${fromKilled.length} creates; the other ${load.created(1).length}`);
    // The killed node's requests in flight at the kill, and all sent later, got no answer at all.
    await assertNothingLost(cluster, url, load, TIMEOUT_MS, (sent) => sent.node === 0 && sent.answer.status === 0);
    assert.ok(load.sent.filter((sent) => sent.node === 0 && sent.sentAt >= killedAt).every((sent) => sent.answer.status === 0));
    assert.ok(load.sent.filter((sent) => sent.node === 1).every((sent) => sent.answer.status === 200 || sent.answer.status === 201));
    assert.deepEqual(errorLines([pair.servers[1]].filter((server) => server !== undefined)), []);
  });
});

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // the process ended meanwhile
  }
}

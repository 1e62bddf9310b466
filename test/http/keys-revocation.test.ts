import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { type ServeProcess, spawnServe, urlOf } from '../ops/support.ts';
import { type MadeKey, makeKey } from '../support/keys.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// A revoked or expired key stops working at once on the process that revoked it, and within 5 s on
// every other, and a key moved to another API version answers in it likewise: two worker processes of one bin/serve.js on SQLite (SVC_WORKERS=2), two bin/serve.js
// nodes on one PostgreSQL database. Each request goes on a new connection and is traced to the
// process that answered it by its X-Request-Id in that process's access log line.
const CONTRACT_MS = 5_000;

interface Answer {
  status: number;
  body: string;
  /** The answer's Api-Version. */
  version: string | null;
  pid: number;
  /** When the request was sent, in ms after the revocation's 204 arrived (or since the epoch). */
  sentAt: number;
}

describe('revocation and expiry across processes', () => {
  let database: TestDatabase;
  let servers: ServeProcess[] = [];
  let urls: string[] = [];
  let admin: MadeKey;
  let sent = 0;
  before(async () => {
    database = await createTestDatabase();
    admin = await makeKey(database, { name: 'admin', scopes: ['admin'] });
    const env = { ...database.env, SVC_AUTH: 'keys' };
    servers = database.engine === 'sqlite' ? [spawnServe({ ...env, SVC_WORKERS: '2' })] : [spawnServe(env), spawnServe(env)];
    urls = await Promise.all(servers.map(urlOf));
    if (database.engine === 'sqlite') await servers[0]?.waitForLine(() => (servers[0]?.lines ?? []).filter((line) => line['msg'] === 'worker listening').length === 2);
  });
  after(async () => {
    // SIGTERM: the primary stops its workers with it; SIGKILL only what is left after that.
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.race([Promise.all(servers.map((server) => server.exited)), sleep(15_000, undefined, { ref: false })]);
    for (const server of servers) server.kill();
    await database.drop();
  });

  // One request on a new connection to the i-th URL (round robin), and the pid that answered it.
  async function send(key: string, method = 'GET', path = '/api/products', patch?: object): Promise<Answer> {
    const requestId = `revocation-${++sent}`;
    const url = new URL(path, urls[sent % urls.length]);
    const sentAt = Date.now();
    const headers = { authorization: `Bearer ${key}`, 'x-request-id': requestId, ...(patch === undefined ? {} : { 'content-type': 'application/merge-patch+json' }) };
    const { status, body, version } = await new Promise<{ status: number; body: string; version: string | null }>((resolve, reject) => {
      const req = request(url, { method, agent: false, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, version: String(res.headers['api-version'] ?? '') || null }));
      });
      req.on('error', reject);
      req.end(patch === undefined ? undefined : JSON.stringify(patch));
    });
    return { status, body, version, pid: await pidThatAnswered(requestId), sentAt };
  }

  // The pid in the access log line of `requestId`, from whichever process wrote it.
  async function pidThatAnswered(requestId: string): Promise<number> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const line = servers.flatMap((server) => server.lines).find((entry) => entry['reqId'] === requestId);
      if (line !== undefined) return Number(line['pid']);
      assert.ok(Date.now() < deadline, `no access log line for ${requestId}`);
      await sleep(10);
    }
  }

  // Requests until each of the two serving processes has answered `want` (a status, or an answer it
  // accepts: the key now cached there).
  async function untilBothAnswer(key: string, want: number | ((answer: Answer) => boolean)): Promise<Answer[]> {
    const answers: Answer[] = [];
    const pids = new Set<number>();
    const wanted = typeof want === 'number' ? (answer: Answer) => answer.status === want : want;
    while (pids.size < 2) {
      const answer = await send(key);
      answers.push(answer);
      if (wanted(answer)) pids.add(answer.pid);
      assert.ok(answers.length < 200, `two processes never both answered ${want}`);
    }
    return answers;
  }

  test('a revoked key gets 401 at once on the process that revoked it, and within 5 s on the other', async () => {
    const reader = (await (await fetch(`${urls[0]}/api/keys`, { method: 'POST', headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' }, body: '{"name":"reader","scopes":["read"]}' })).json()) as MadeKey;
    await untilBothAnswer(reader.key, 200);
    const revocation = await send(admin.key, 'DELETE', `/api/keys/${reader.id}`);
    assert.equal(revocation.status, 204);
    const revokedAt = Date.now();
    const after: Answer[] = [];
    // The revoking process answers 401 from its very next request.
    for (let answer = await send(reader.key); ; answer = await send(reader.key)) {
      after.push(answer);
      if (answer.pid === revocation.pid) break;
      assert.ok(after.length < 100, 'the revoking process was never reached again');
    }
    assert.equal(after.at(-1)?.status, 401, 'the process that revoked it refused it at once');
    assert.equal(JSON.parse(after.at(-1)?.body ?? '{}').detail, 'The API key has been revoked.');
    after.push(...(await untilBothAnswer(reader.key, 401)));
    // Then a few more on each: once a process has refused the key, it never takes it again.
    for (let i = 0; i < 6; i++) after.push(await send(reader.key));
    const other = after.filter((answer) => answer.pid !== revocation.pid);
    const firstRefusal = other.findIndex((answer) => answer.status === 401);
    assert.ok(firstRefusal >= 0 && (other[firstRefusal]?.sentAt ?? Infinity) - revokedAt <= CONTRACT_MS, 'the other process refused it within 5 s');
    assert.deepEqual(other.slice(firstRefusal).map((answer) => answer.status).filter((status) => status !== 401), []);
    assert.deepEqual(after.filter((answer) => answer.pid === revocation.pid).map((answer) => answer.status).filter((status) => status !== 401), []);
    assert.ok(after.filter((answer) => answer.status === 200).every((answer) => answer.sentAt - revokedAt < CONTRACT_MS), 'no 200 for a request sent 5 s after');
  });

  test('a key moved to another API version answers in it at once on the process that moved it, and within 5 s on the other', async () => {
    const made = await fetch(`${urls[0]}/api/keys`, { method: 'POST', headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' }, body: '{"name":"mover","scopes":["read"]}' });
    const mover = (await made.json()) as MadeKey;
    const inFirst = (answer: Answer): boolean => answer.status === 200 && answer.version === '2026-11-21' && Array.isArray(JSON.parse(answer.body));
    const inLists = (answer: Answer): boolean => answer.status === 200 && answer.version === '2026-11-28' && Object.keys(JSON.parse(answer.body)).join() === 'data,hasMore';
    await untilBothAnswer(mover.key, inFirst);
    const move = await send(admin.key, 'PATCH', `/api/keys/${mover.id}`, { apiVersion: '2026-11-28' });
    assert.equal(move.status, 200, move.body);
    const movedAt = Date.now();
    const after: Answer[] = [];
    for (let answer = await send(mover.key); ; answer = await send(mover.key)) {
      after.push(answer);
      if (answer.pid === move.pid) break;
      assert.ok(after.length < 100, 'the process that moved it was never reached again');
    }
    assert.ok(inLists(after.at(-1) as Answer), 'the process that moved it answered in the new version at once');
    after.push(...(await untilBothAnswer(mover.key, inLists)));
    for (let i = 0; i < 6; i++) after.push(await send(mover.key));
    assert.deepEqual(after.filter((answer) => !inFirst(answer) && !inLists(answer)).map((answer) => answer.status), [], 'every answer in one version or the other');
    const other = after.filter((answer) => answer.pid !== move.pid);
    const firstMoved = other.findIndex(inLists);
    assert.ok(firstMoved >= 0 && (other[firstMoved]?.sentAt ?? Infinity) - movedAt <= CONTRACT_MS, 'the other process moved within 5 s');
    assert.ok(other.slice(firstMoved).every(inLists), 'and never went back');
    assert.ok(after.filter((answer) => answer.pid === move.pid).every(inLists));
    assert.ok(after.filter(inFirst).every((answer) => answer.sentAt - movedAt < CONTRACT_MS), 'no answer in the old version for a request sent 5 s after');
  });

  test('an expired key gets 401 on every process from its expiry on', async () => {
    const expiresAt = Date.now() + 2_500;
    const made = await fetch(`${urls[0]}/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'short', scopes: ['read'], expiresAt: new Date(expiresAt).toISOString() }),
    });
    const short = (await made.json()) as MadeKey;
    const before = await untilBothAnswer(short.key, 200);
    assert.ok(before.every((answer) => answer.sentAt < expiresAt), 'warmed up before the expiry (a slow machine would make this test meaningless)');
    // Expiry is judged against the clock on every request: waiting on the wall clock is the point.
    await sleep(Math.max(0, expiresAt - Date.now()) + 5);
    const answers = await untilBothAnswer(short.key, 401);
    assert.deepEqual(answers.map((answer) => answer.status).filter((status) => status !== 401), [], 'no process took it after its expiry');
    assert.equal(JSON.parse(answers[0]?.body ?? '{}').detail, 'The API key has expired.');
  });
});

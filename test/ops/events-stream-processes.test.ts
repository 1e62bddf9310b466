import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { openStream, type OpenStream } from '../support/event-stream.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { type ServeProcess, spawnServe, urlOf } from './support.ts';

// An event committed by any process reaches every open stream within 1 s (docs/events.md, The live stream): two
// worker processes of one bin/serve.js on SQLite (SVC_WORKERS=2; each learns of the other's commits
// by PRAGMA data_version), two bin/serve.js nodes on one PostgreSQL database (LISTEN/NOTIFY).
const CONTRACT_MS = 1_000;
const STREAMS = 6;
const WRITES = 12;

// A POST on a new connection (so the primary's round robin spreads them over the workers).
function create(url: string, name: string): Promise<{ id: number; at: number }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ name, priceInCents: 1 });
    const req = request(new URL('/api/products', url), { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 201 ? resolve({ id: (JSON.parse(text) as { id: number }).id, at: Date.now() }) : reject(new Error(`${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('streams across processes', () => {
  let database: TestDatabase;
  let servers: ServeProcess[] = [];
  let urls: string[] = [];
  before(async () => {
    database = await createTestDatabase();
    servers = database.engine === 'sqlite' ? [spawnServe({ ...database.env, SVC_WORKERS: '2' })] : [spawnServe(database.env), spawnServe(database.env)];
    urls = await Promise.all(servers.map(urlOf));
    if (database.engine === 'sqlite') await servers[0]?.waitForLine(() => (servers[0]?.lines ?? []).filter((line) => line['msg'] === 'worker listening').length === 2);
  });
  after(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.race([Promise.all(servers.map((server) => server.exited)), sleep(15_000, undefined, { ref: false })]);
    for (const server of servers) server.kill();
    await database.drop();
  });

  test('every event, written by any process, reaches every stream on every process within 1 s', { timeout: 90_000 }, async () => {
    const streams: OpenStream[] = [];
    const arrivals = new Map<OpenStream, Map<number, number>>();
    for (let i = 0; i < STREAMS; i++) {
      const stream = await openStream(`${urls[i % urls.length]}/api/events`, { 'x-request-id': `stream-${i}`, connection: 'close' });
      const seen = new Map<number, number>();
      arrivals.set(stream, seen);
      streams.push(stream);
    }
    // Each message's arrival time, noted as it comes.
    const watching = setInterval(() => {
      for (const [stream, seen] of arrivals) for (const message of stream.messages) {
        const id = (JSON.parse(message.data) as { data: { id: number } }).data.id;
        if (!seen.has(id)) seen.set(id, Date.now());
      }
    }, 5);
    try {
      await sleep(500);
      const written: { id: number; at: number }[] = [];
      for (let i = 0; i < WRITES; i++) {
        written.push(await create(urls[i % urls.length] as string, `write ${i}`));
        await sleep(150);
      }
      await Promise.all(streams.map((stream) => stream.waitFor(WRITES, 10_000)));
      await sleep(20);
      for (const [stream, seen] of arrivals) {
        assert.deepEqual([...seen.keys()], written.map((write) => write.id), 'every event once, in order');
        for (const write of written) {
          const late = (seen.get(write.id) as number) - write.at;
          assert.ok(late <= CONTRACT_MS, `${String(stream.headers['x-request-id'])}: product ${write.id} arrived ${late} ms after its 201`);
        }
      }
    } finally {
      clearInterval(watching);
      for (const stream of streams) stream.close();
    }
    // Both processes (workers) served streams: the access log names each stream's process.
    await sleep(300);
    const pids = new Set(servers.flatMap((server) => server.lines.filter((line) => String(line['reqId']).startsWith('stream-')).map((line) => line['pid'])));
    assert.equal(pids.size, 2, 'streams on two processes');
  });
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openStream } from '../support/event-stream.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// A commit the service was never told of (another process whose signal was lost: on PostgreSQL a
// notification sent while the listener was away; on SQLite any other connection) still reaches the
// open streams: by `PRAGMA data_version` on SQLite, by the slow poll behind LISTEN on PostgreSQL
// (docs/events.md, Wake-ups). The event is written here behind the service's back, with no signal.

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

test('an event committed with no signal at all reaches an open stream', { timeout: 60_000 }, async () => {
  const stream = await openStream(`${server.url}/api/events`);
  try {
    await stream.waitForComments(1, 5_000);
    const at = new Date().toISOString();
    const data = JSON.stringify([424242, 'unannounced', at, at, 1]);
    await server.database.sql(`INSERT INTO events (type, created_at, data) VALUES (4, '${at}', '${data}')`);
    const committedAt = performance.now();
    // The poll behind PostgreSQL's notifications runs every 5 s: a lost notification costs at most that
    // (and the read after it). SQLite's every 200 ms: another process's commit reaches a stream within
    // the contract's 1 s, told or not.
    const [message] = await stream.waitFor(1, 20_000);
    const late = performance.now() - committedAt;
    const event = JSON.parse(message?.data ?? '') as { type: string; data: { id: number; name: string } };
    assert.deepEqual([event.type, event.data.id, event.data.name], ['workspace.created', 424242, 'unannounced']);
    const bound = server.database.engine === 'sqlite' ? 1_000 : 6_500;
    assert.ok(late <= bound, `arrived ${late.toFixed(0)} ms after its commit (at most ${bound})`);
  } finally {
    stream.close();
  }
});

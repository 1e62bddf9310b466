import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertProblem } from '../support/assertions.ts';
import { settle } from '../support/events.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// An id is an opaque string the service issued (docs/events.md): another spelling of a place names no
// event it issued, so it is refused like any unknown id. PostgreSQL reads digits with a leading 0 as
// octal, so the octal spelling of a real id's number (with a 0 in front) is the spelling to try.

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

// The same place spelled otherwise: the first number of the id in octal, with a leading 0.
function octalSpelling(id: string): string {
  const [first = '', ...rest] = id.split('_');
  return [`0${Number(first).toString(8)}`, ...rest].join('_');
}

test('an issued id spelled otherwise (a leading 0, octal) is 400: invalid_query as after, invalid_header as Last-Event-ID', async () => {
  const known = (await settle(server.url, null)).marker;
  for (const odd of [octalSpelling(known), `0${known}`, '09_1', '08', '00000000000000000009_1']) {
    const problem = await assertProblem(await fetch(`${server.url}/api/events?after=${odd}`), 400, 'invalid_query', '/api/events');
    assert.equal((problem['errors'] as { parameter: string }[])[0]?.parameter, 'after', odd);
    const stream = await fetch(`${server.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': odd } });
    assert.equal(stream.status, 400, odd);
    assert.equal(((await stream.json()) as { code: string }).code, 'invalid_header', odd);
  }
  // The id as issued is still good.
  assert.equal((await fetch(`${server.url}/api/events?after=${known}`)).status, 200);
});

test('an after refused before a stream is the same problem as on the feed: 400 invalid_query whose errors name the parameter', async () => {
  const known = (await settle(server.url, null)).marker;
  for (const bad of ['not.an.id', `${known}9`]) {
    for (const headers of [{}, { accept: 'text/event-stream' }]) {
      const problem = await assertProblem(await fetch(`${server.url}/api/events?after=${bad}`, { headers }), 400, 'invalid_query', '/api/events');
      assert.equal((problem['errors'] as { parameter: string }[] | undefined)?.[0]?.parameter, 'after', `${bad} ${JSON.stringify(headers)}`);
    }
  }
});

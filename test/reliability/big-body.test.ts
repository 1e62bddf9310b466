import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { migratedDatabaseFile } from '../support/server.ts';
import { residentBytes, spawnServer, type SpawnedServer } from './spawned-server.ts';

// A 50 MB body, announced by Content-Length or sent chunked, is refused with 413 without the
// server reading it: the client cannot push more than socket buffers hold before the answer,
// and the server process's resident memory does not grow by anything like the body.

const BODY_BYTES = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
// What may reasonably pass through kernel socket buffers before the refusal lands.
const MOST_WRITTEN = 16 * 1024 * 1024;
const MOST_GROWTH = 16 * 1024 * 1024;
// No drain for this long: the server is not reading.
const STALL_MS = 1_000;
const FIRST_PAUSE_MS = 500;

let server: SpawnedServer;
let folder: string;
before(async () => {
  const { dir, dbPath } = migratedDatabaseFile();
  folder = dir;
  server = await spawnServer({ SVC_DB_PATH: dbPath, SVC_DB_DURABILITY: 'normal' }, dir);
});
after(async () => {
  await server.kill('SIGTERM');
  rmSync(folder, { recursive: true, force: true });
});

function answerOrTimeout(socket: Socket, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    socket.once('data', done).once('close', done);
  });
}

interface Upload {
  response: string;
  bytesWritten: number;
}

/** Sends `head` then up to 50 MB (raw or chunk-framed) as fast as the socket takes it, until the server answers or hangs up. */
function upload(head: string, framed: boolean): Promise<Upload> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  let response = '';
  let stopped = false;
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => {
    response += text;
    stopped = true;
  });
  socket.on('error', () => (stopped = true));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('close', () => (stopped = true));
  // Writes until done, answered, or stalled: a server that does not read lets the socket buffers
  // fill and never drains them. Writing on into a reset would make Node drop the unread answer.
  const pump = async (): Promise<void> => {
    socket.write(head);
    const piece = framed ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK;
    for (let sent = 0; sent < BODY_BYTES && !stopped; sent += CHUNK.length) {
      // After the first piece (already past the limit) a client gives the server a moment to answer,
      // as one sending `Expect: 100-continue` would; a server that reads on gets the other 50 MB.
      if (sent === CHUNK.length) await answerOrTimeout(socket, FIRST_PAUSE_MS);
      if (stopped) break;
      if (socket.write(piece)) continue;
      const drained = await new Promise<boolean>((resolve) => {
        const stall = setTimeout(() => resolve(false), STALL_MS);
        const done = (): void => {
          clearTimeout(stall);
          resolve(true);
        };
        socket.once('drain', done).once('close', done).once('data', done);
      });
      if (!drained) break;
    }
  };
  return pump().then(async () => {
    const timer = setTimeout(() => socket.destroy(), 10_000);
    await closed;
    clearTimeout(timer);
    return { response, bytesWritten: socket.bytesWritten };
  });
}

// node:http closes at once after refusing (it never reads the body), so a client still writing can
// meet the reset before it reads the refusal (RFC 9112 §9.6): each attempt must be bounded, and an
// answer that was read must be the refusal; of three attempts, at least one must read it.
async function refusedWithoutReading(t: { diagnostic(message: string): void }, head: string, framed: boolean, refusal: readonly RegExp[]): Promise<void> {
  let answered = 0;
  for (let attempt = 0; attempt < 3 && answered === 0; attempt++) {
    const rssBefore = residentBytes(server.pid);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(server.pid))), 10);
    const result = await upload(head, framed).finally(() => clearInterval(sampler));
    peak = Math.max(peak, residentBytes(server.pid));
    t.diagnostic(`client wrote ${result.bytesWritten} of ${BODY_BYTES} bytes; server RSS ${rssBefore} -> peak ${peak} (+${peak - rssBefore}); answer read: ${result.response !== ''}`);
    assert.ok(result.bytesWritten < MOST_WRITTEN, `the client pushed ${result.bytesWritten} bytes before the refusal`);
    assert.ok(peak - rssBefore < MOST_GROWTH, `server memory grew by ${peak - rssBefore} bytes`);
    if (result.response === '') continue;
    answered++;
    for (const part of refusal) assert.match(result.response, part);
    assert.match(result.response, /content-type: application\/problem\+json/i);
    assert.match(result.response, /connection: close/i);
  }
  assert.equal(answered, 1, 'no attempt read the refusal');
  assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
}

const TOO_LARGE = [/^HTTP\/1\.1 413 Content Too Large\r\n/, /\r\n\r\n\{.*"code":"payload_too_large"/];

test('a 50 MB body announced by Content-Length is refused with 413 before it is read', async (t) => {
  const head = `POST /api/products HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`;
  await refusedWithoutReading(t, head, false, TOO_LARGE);
});

test('a 50 MB chunked body is refused with 413 once it passes the limit', async (t) => {
  const head = 'POST /api/products HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
  await refusedWithoutReading(t, head, true, TOO_LARGE);
});

test('a 50 MB body to a route that takes none is refused with 405 and not read either', async (t) => {
  const head = `PUT /api/products HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`;
  await refusedWithoutReading(t, head, false, [/^HTTP\/1\.1 405 Method Not Allowed\r\n/, /\r\nallow: [A-Z, ]+\r\n/i, /\r\n\r\n\{.*"code":"method_not_allowed"/]);
});

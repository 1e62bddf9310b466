import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// Slowloris (headers trickled) and slow-body clients must be cut off by the configured timeouts
// while everyone else keeps being served. No latency figure is asserted: only that normal
// requests complete while the attackers are still connected, and that the attackers are cut off.

const HEADERS_TIMEOUT_MS = 1_500;
const REQUEST_TIMEOUT_MS = 2_000;
const ATTACKERS = 40;
const TRICKLE_EVERY_MS = 200;
// Far longer than the timeouts: a connection still open at this point was not cut off.
const GIVE_UP_MS = 15_000;

interface Attacker {
  socket: Socket;
  received: string;
  closed: boolean;
  cutOffAfterMs: number;
}

let server: TestServer;
before(async () => {
  server = await startTestServer({
    SVC_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    SVC_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  });
});
after(() => server.stop());

/** Opens a connection that sends `head` at once and then one more `drip` every interval, forever. */
function attacker(head: string, drip: string): Attacker {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  const startedAt = Date.now();
  const state: Attacker = { socket, received: '', closed: false, cutOffAfterMs: NaN };
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => (state.received += text));
  socket.on('error', () => {});
  socket.on('close', () => {
    state.closed = true;
    state.cutOffAfterMs = Date.now() - startedAt;
    clearInterval(timer);
  });
  socket.write(head);
  const timer = setInterval(() => socket.write(drip), TRICKLE_EVERY_MS);
  return state;
}

function slowloris(): Attacker {
  return attacker('GET /api/products HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');
}

function slowBody(): Attacker {
  const head = 'POST /api/products HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"';
  // Under the body limit, so only the request timeout can end it.
  return attacker(head, 'x');
}

async function allClosed(attackers: readonly Attacker[]): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  while (attackers.some((a) => !a.closed) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const a of attackers) a.socket.destroy();
}

/** `received` is exactly one 408 problem document (request_timeout), after which the server closed. */
function assertTold408(received: string, who: string): void {
  const headEnd = received.indexOf('\r\n\r\n');
  assert.ok(headEnd > 0, `${who} was cut off without an answer: ${JSON.stringify(received)}`);
  const [statusLine, ...lines] = received.slice(0, headEnd).split('\r\n');
  assert.equal(statusLine, 'HTTP/1.1 408 Request Timeout', who);
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  assert.equal(headers.get('content-type'), 'application/problem+json', who);
  assert.equal(headers.get('connection'), 'close', who);
  const body = received.slice(headEnd + 4);
  assert.equal(Buffer.byteLength(body, 'latin1'), Number(headers.get('content-length')), `${who}: the whole body, then nothing`);
  const problem = JSON.parse(body) as { status: number; code: string };
  assert.deepEqual([problem.status, problem.code], [408, 'request_timeout'], who);
}

test(`${ATTACKERS} slowloris and ${ATTACKERS} slow-body clients are cut off while others are served`, { timeout: 60_000 }, async (t) => {
  const attackers = [...Array.from({ length: ATTACKERS }, slowloris), ...Array.from({ length: ATTACKERS }, slowBody)];
  try {
    await new Promise((resolve) => setTimeout(resolve, TRICKLE_EVERY_MS * 2));
    let served = 0;
    for (let i = 0; i < 10; i++) {
      assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
      assert.equal((await postJson(`${server.url}/api/products`, { name: `during attack ${i}`, priceInCents: i })).status, 201);
      served += 2;
    }
    // Served while every attacker was still hanging on: nobody waited for the timeouts.
    assert.deepEqual(attackers.filter((a) => a.closed).length, 0, 'normal requests only got through after the cut-off');
    await allClosed(attackers);
    const open = attackers.filter((a) => !a.closed).length;
    assert.equal(open, 0, `${open} slow connections were never cut off`);
    const cutOff = attackers.map((a) => a.cutOffAfterMs);
    const told = attackers.filter((a) => a.received !== '').length;
    t.diagnostic(`served ${served} normal requests during the attack; attackers cut off after ${Math.min(...cutOff)}..${Math.max(...cutOff)} ms, ${told} told 408`);
    // docs/api.md, Errors: they get 408 and are disconnected. Every one is told why, with a whole problem document.
    attackers.forEach((a, i) => assertTold408(a.received, i < ATTACKERS ? 'slowloris' : 'slow body'));
  } finally {
    for (const a of attackers) a.socket.destroy();
  }
  assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
  assert.deepEqual(server.logs.filter((line) => Number(line['level']) >= 50), [], 'the server logged an unexpected error');
});

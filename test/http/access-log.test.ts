import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { startAppServer } from '../support/app-server.ts';
import { postJson, startTestServer } from '../support/server.ts';

const ACCESS_KEYS = ['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'msg'];

async function drain(response: Promise<Response>): Promise<Response> {
  const settled = await response;
  await settled.arrayBuffer();
  return settled;
}

test('one pino-format line per request, with every documented field', async () => {
  const server = await startTestServer();
  try {
    const started = Date.now();
    await drain(fetch(`${server.url}/api/products?limit=2&x=%20y`, { headers: { 'x-request-id': 'log-1' } }));
    await drain(postJson(`${server.url}/api/products`, { name: 'x', priceInCents: 1 }, { 'x-request-id': 'log-2' }));
    await drain(fetch(`${server.url}/api/nowhere`, { method: 'HEAD', headers: { 'x-request-id': 'log-3' } }));
    server.app.logger.flush();
    const lines = server.logs.filter((line) => line['msg'] === 'request completed');
    assert.equal(lines.length, 3, 'one line each');
    const [list, create, head] = lines;
    assert.deepEqual(Object.keys(list ?? {}), ACCESS_KEYS, 'pino key order');
    assert.equal(list?.['level'], 30);
    assert.ok(Number.isInteger(list?.['time']) && (list?.['time'] as number) >= started - 1 && (list?.['time'] as number) <= Date.now());
    assert.equal(list?.['pid'], process.pid);
    assert.equal(list?.['hostname'], hostname());
    assert.equal(list?.['reqId'], 'log-1');
    assert.deepEqual(list?.['req'], { method: 'GET', url: '/api/products?limit=2&x=%20y', remoteAddress: '127.0.0.1' });
    assert.deepEqual(list?.['res'], { statusCode: 200 });
    assert.equal(typeof list?.['responseTime'], 'number');
    assert.ok((list?.['responseTime'] as number) >= 0);
    assert.deepEqual([create?.['reqId'], create?.['req'], create?.['res'], create?.['level']], ['log-2', { method: 'POST', url: '/api/products', remoteAddress: '127.0.0.1' }, { statusCode: 201 }, 30]);
    assert.deepEqual([head?.['reqId'], (head?.['req'] as { method: string }).method, head?.['res'], head?.['level']], ['log-3', 'HEAD', { statusCode: 404 }, 30]);
  } finally {
    await server.stop();
  }
});

test('4xx lines are level 30 and 5xx lines level 50', async () => {
  const server = await startAppServer();
  try {
    await drain(fetch(`${server.url}/api/products?limit=0`));
    await drain(postJson(`${server.url}/api/products`, {}));
    await server.breakDatabase();
    await drain(fetch(`${server.url}/api/products`));
    await drain(fetch(`${server.url}/api/ping`));
    server.app.logger.flush();
    const access = server.logs.filter((line) => line['msg'] === 'request completed');
    assert.deepEqual(access.map((line) => [(line['res'] as { statusCode: number }).statusCode, line['level']]), [[400, 30], [422, 30], [500, 50], [503, 50]]);
  } finally {
    await server.stop();
  }
});

test('SVC_LOG_LEVEL=warn silences request lines but keeps errors', async () => {
  const server = await startAppServer({ SVC_LOG_LEVEL: 'warn' });
  try {
    await drain(fetch(`${server.url}/api/ping`));
    await drain(fetch(`${server.url}/api/nowhere`));
    server.app.logger.flush();
    assert.deepEqual(server.logs, []);
    await server.breakDatabase();
    await drain(fetch(`${server.url}/api/products`));
    server.app.logger.flush();
    assert.deepEqual(server.logs.map((line) => line['level']), [50, 50], 'the unexpected error and its 500 line');
  } finally {
    await server.stop();
  }
});

test('SVC_LOG_LEVEL=silent silences everything, errors included', async () => {
  const server = await startAppServer({ SVC_LOG_LEVEL: 'silent' });
  try {
    await drain(fetch(`${server.url}/api/ping`));
    await server.breakDatabase();
    await drain(fetch(`${server.url}/api/products`));
    server.app.logger.flush();
    assert.deepEqual(server.logs, []);
  } finally {
    await server.stop();
  }
});

test('bodies, tokens and Authorization never reach the log', async () => {
  const token = 'TOKEN-MARKER-0123456789abcdef';
  const server = await startTestServer({ SVC_API_TOKEN: token });
  try {
    const auth = { authorization: `Bearer ${token}` };
    const requests = [
      postJson(`${server.url}/api/products`, { name: 'BODY-MARKER-created', priceInCents: 1 }, auth),
      postJson(`${server.url}/api/products`, { name: 'x', 'BODY-MARKER-unknown': 1 }, auth),
      postJson(`${server.url}/api/products`, '{"BODY-MARKER-malformed', auth),
      postJson(`${server.url}/api/products`, { name: 'BODY-MARKER-refused', priceInCents: 1 }, { authorization: 'Bearer WRONG-MARKER-token-value' }),
      postJson(`${server.url}/api/products`, { name: 'BODY-MARKER-refused', priceInCents: 1 }, { authorization: 'Basic AUTH-MARKER' }),
      fetch(`${server.url}/api/products`, { headers: auth }),
    ];
    const statuses = [];
    for (const request of requests) statuses.push((await drain(request)).status);
    assert.deepEqual(statuses, [201, 422, 400, 401, 401, 200]);
    server.app.logger.flush();
    assert.equal(server.logs.filter((line) => line['msg'] === 'request completed').length, requests.length);
    const text = server.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const marker of ['BODY-MARKER', 'TOKEN-MARKER', 'WRONG-MARKER', 'AUTH-MARKER', 'Bearer', 'authorization']) {
      assert.ok(!text.toLowerCase().includes(marker.toLowerCase()), `${marker} must not be logged`);
    }
  } finally {
    await server.stop();
  }
});

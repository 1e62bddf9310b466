import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseExposition, valueOf } from '../support/exposition.ts';
import { type RawResponse, rawRequest } from '../support/raw-http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// RFC 9112 §3.2.2: a request target in absolute form is served like its origin form, and
// everything that reports the target (access log, metrics route, problem instance, paging Link)
// shows the origin form.

let server: TestServer;
let authority = '';
before(async () => {
  server = await startTestServer({ SVC_METRICS_PORT: '0' });
  authority = new URL(server.url).host;
});
after(() => server.stop());

// One resource as the sample: how a target is read does not depend on the route.
const resource = 'products';
const body = { name: 'Lamp', priceInCents: 1 };

// One request on its own connection; `target` goes on the request line as it is.
function send(method: string, target: string, options: { body?: string; headers?: string[]; host?: string } = {}): Promise<RawResponse> {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${options.host ?? authority}`, 'Connection: close', ...(options.headers ?? [])];
  if (options.body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(options.body)}`);
  return rawRequest(server.url, lines.join('\r\n'), options.body === undefined ? [] : [options.body]);
}

const json = (response: RawResponse): Record<string, unknown> => JSON.parse(response.body) as Record<string, unknown>;

function accessLine(requestId: string): Record<string, unknown> {
  server.app.logger.flush();
  const line = server.logs.find((entry) => entry['msg'] === 'request completed' && entry['reqId'] === requestId);
  assert.ok(line !== undefined, `an access log line for ${requestId}`);
  return line['req'] as Record<string, unknown>;
}

test(`${resource}: POST, GET, HEAD, PATCH and DELETE in absolute form are served as in origin form`, async () => {
  const base = `http://${authority}/api/${resource}`;
  const created = await send('POST', base, { body: JSON.stringify(body) });
  assert.equal(created.status, 201);
  const location = created.headers['location'] ?? '';
  assert.match(location, new RegExp(`^/api/${resource}/[1-9][0-9]*$`), 'Location is a path');
  const read = await send('GET', `http://${authority}${location}`);
  assert.equal(read.status, 200);
  assert.deepEqual(json(read), json(created));
  assert.equal(read.headers['etag'], created.headers['etag']);
  const origin = await fetch(`${server.url}${location}`);
  assert.deepEqual(await origin.json(), json(read), 'the same representation as in origin form');
  const head = await send('HEAD', `http://${authority}${location}`);
  assert.deepEqual([head.status, head.headers['etag'], head.body], [200, created.headers['etag'], '']);
  const patched = await send('PATCH', `http://${authority}${location}`, { body: '{"name":"Renamed"}', headers: [`If-Match: ${created.headers['etag']}`] });
  assert.deepEqual([patched.status, json(patched)['name']], [200, 'Renamed']);
  const deleted = await send('DELETE', `http://${authority}${location}`);
  assert.equal(deleted.status, 204);
  const gone = await send('GET', `http://${authority}${location}?x=1`);
  assert.deepEqual([gone.status, json(gone)['code'], json(gone)['instance']], [404, 'not_found', location]);
});

test(`${resource}: a page's Link, a problem's instance and the access log show the origin form`, async () => {
  for (let i = 0; i < 2; i++) await send('POST', `http://${authority}/api/${resource}`, { body: JSON.stringify(body) });
  const page = await send('GET', `http://${authority}/api/${resource}?limit=1`, { headers: [`X-Request-Id: abs-page-${resource}`] });
  assert.equal(page.status, 200);
  assert.match(page.headers['link'] ?? '', new RegExp(`^</api/${resource}\\?limit=1&cursor=[\\w-]+>; rel="next"$`));
  assert.deepEqual(accessLine(`abs-page-${resource}`)['url'], `/api/${resource}?limit=1`);
  const bad = await send('GET', `http://${authority}/api/${resource}?limit=0`, { headers: [`X-Request-Id: abs-bad-${resource}`] });
  assert.deepEqual([bad.status, json(bad)['instance']], [400, `/api/${resource}`]);
  assert.deepEqual(accessLine(`abs-bad-${resource}`)['url'], `/api/${resource}?limit=0`);
});

test('the metrics count a request in absolute form under its route pattern', async () => {
  const metricsUrl = server.metricsUrl ?? '';
  const labels = { method: 'GET', route: '/api/products/{id}', status: '404' };
  const count = async (): Promise<number> => {
    const families = parseExposition(await (await fetch(metricsUrl)).text());
    return valueOf(families, 'http_requests_total', labels) ?? 0;
  };
  const before = await count();
  const response = await send('GET', `http://${authority}/api/products/999999`);
  assert.equal(response.status, 404);
  const families = parseExposition(await (await fetch(metricsUrl)).text());
  assert.equal(valueOf(families, 'http_requests_total', labels), before + 1, 'counted under the pattern, not (unmatched)');
});

test('the scheme is http or https in any letter case, the authority is any host, and Host is not compared with it', async () => {
  for (const target of [`HTTP://${authority}/api/ping`, 'https://elsewhere.example/api/ping', 'HtTpS://[::1]:9/api/ping', 'http://h:/api/ping']) {
    const response = await send('GET', target, { host: 'another.example' });
    assert.equal(response.status, 200, target);
    assert.deepEqual(json(response)['status'], 1, target);
  }
});

test('an absolute-form target with no path is the path /', async () => {
  for (const target of [`http://${authority}`, `http://${authority}?x=1`]) {
    const response = await send('GET', target);
    assert.deepEqual([response.status, json(response)['code'], json(response)['instance']], [404, 'not_found', '/'], target);
  }
});

test('another scheme, user information or an empty host is 400 bad_request, and no credentials reach the log', async () => {
  const cases: [string, RegExp][] = [
    ['ftp://h/api/ping', /http or https/],
    ['ws://h/api/ping', /http or https/],
    ['http://user:secret-pass@h/api/ping', /user information/],
    ['http://@h/api/ping', /user information/],
    ['http:///api/ping', /host/],
    ['https://:8080/api/ping', /host/],
  ];
  for (const [index, [target, detail]] of cases.entries()) {
    const response = await send('GET', target, { headers: [`X-Request-Id: abs-refused-${index}`] });
    assert.deepEqual([response.status, json(response)['code']], [400, 'bad_request'], target);
    assert.match(String(json(response)['detail']), detail, target);
    assert.ok(!String(accessLine(`abs-refused-${index}`)['url']).includes('secret-pass'), `${target}: logged without credentials`);
  }
  server.app.logger.flush();
  assert.ok(!JSON.stringify(server.logs).includes('secret-pass'), 'no log line holds the password');
});

test('an asterisk-form target: OPTIONS * is 204 with Allow; any other method with * is 400', async () => {
  const options = await send('OPTIONS', '*');
  assert.equal(options.status, 204);
  const allow = (options.headers['allow'] ?? '').split(', ');
  // Every method served on some path, HEAD with GET.
  const served = new Set(server.app.routes.map((route) => route.method));
  assert.deepEqual(allow, [...served, 'HEAD'].sort());
  for (const method of ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST']) assert.ok(allow.includes(method), method);
  assert.equal(options.body, '');
  assert.equal(options.headers['x-content-type-options'], 'nosniff', 'with the headers of every response');
  for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
    const response = await send(method, '*');
    assert.equal(response.status, 400, method);
    if (method !== 'HEAD') assert.equal(json(response)['code'], 'bad_request', method);
  }
});

test('an authority-form target is refused: 400 on any method but CONNECT, which gets no tunnel', async () => {
  const response = await send('GET', `${authority}`);
  assert.deepEqual([response.status, json(response)['code']], [400, 'bad_request']);
  const connect = await send('CONNECT', authority);
  assert.equal(connect.closedByServer, true);
  assert.ok(!/^HTTP\/1\.1 2/.test(connect.body), 'no 2xx: nothing is tunnelled');
  assert.notEqual(connect.status, 200);
  assert.equal((await fetch(`${server.url}/api/ping`)).status, 200, 'the server still serves');
});

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { BROWSER_DEADLINE_MS, haveChromium, launchChromium, type TestBrowser, watchPage } from '../support/browser.ts';
import { WRITER, writersAndReaders } from '../support/test-credentials.ts';

// A single-page app's calls, as a front-end developer writes them; each step's outcome, or the error
// fetch threw, lands in window.results.
const APP_SCRIPT = `
const API = new URLSearchParams(location.search).get('api');
const auth = { Authorization: 'Bearer ${WRITER}' };
const json = { ...auth, 'Content-Type': 'application/json' };
async function call(path, init) {
  const response = await fetch(API + path, init);
  const text = await response.text();
  const header = (name) => response.headers.get(name);
  return { status: response.status, etag: header('ETag'), location: header('Location'), link: header('Link'),
    requestId: header('X-Request-Id'), wwwAuthenticate: header('WWW-Authenticate'), body: text === '' ? null : JSON.parse(text) };
}
async function run() {
  const results = {};
  const step = async (name, work) => {
    try { results[name] = await work(); } catch (error) { results[name] = { error: error.name + ': ' + error.message }; }
    return results[name];
  };
  await step('ping', () => call('/api/ping'));
  const first = await step('create', () => call('/api/products', { method: 'POST', headers: { ...json, 'X-Request-Id': 'from-the-page-1', 'Idempotency-Key': 'page-1' }, body: JSON.stringify({ name: 'From a page', priceInCents: 100 }) }));
  await step('createAnother', () => call('/api/products', { method: 'POST', headers: json, body: JSON.stringify({ name: 'Another', priceInCents: 200 }) }));
  const patch = (tag) => call(first.location, { method: 'PATCH', headers: { ...auth, 'Content-Type': 'application/merge-patch+json', 'If-Match': tag }, body: '{"priceInCents":150}' });
  await step('change', () => patch(first.etag));
  await step('staleChange', () => patch(first.etag));
  await step('firstPage', () => call('/api/products?limit=1', { headers: auth }));
  await step('stranger', () => call('/api/products'));
  // CORP: a no-cors fetch (what an <img> or <script> of another origin makes) is refused.
  await step('noCors', async () => ({ type: (await fetch(API + '/api/ping', { mode: 'no-cors' })).type }));
  // COOP: a window of the API opened from here is put in a group of its own; this page loses it.
  await step('popup', async () => {
    const popup = window.open(API + '/api/ping');
    const deadline = Date.now() + 30000;
    while (!popup.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return { closed: popup.closed };
  });
  window.results = results;
}
run();
`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>an app</title></head><body><script>${APP_SCRIPT}</script></body></html>`;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A static server of the test's own: one page, on an origin of its own. */
function pageServer(): Server {
  return createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(PAGE);
  });
}

type Results = Record<string, Record<string, unknown>>;

describe('a page of another origin calls the API from Chromium', () => {
  const allowedPages = pageServer();
  const otherPages = pageServer();
  let allowedOrigin = '';
  let otherOrigin = '';
  let api: AppServer;
  let chromium: TestBrowser | null = null;
  before(async () => {
    allowedOrigin = await listen(allowedPages);
    otherOrigin = await listen(otherPages);
    api = await startAppServer({ SVC_AUTH: 'keys', SVC_CORS_ORIGINS: allowedOrigin }, { credentials: writersAndReaders });
  });
  after(async () => {
    await chromium?.close();
    await api.stop();
    allowedPages.close();
    otherPages.close();
  });

  async function runPage(origin: string): Promise<{ results: Results; console: string[] }> {
    chromium ??= await launchChromium();
    const page = await chromium.browser.newPage();
    const reports = await watchPage(page);
    await page.goto(`${origin}/?api=${encodeURIComponent(api.url)}`);
    // Polled by time, not by animation frame: a page behind the window it opened gets no frames.
    await page.waitForFunction('window.results !== undefined', { timeout: 2 * BROWSER_DEADLINE_MS, polling: 100 });
    const results = (await page.evaluate('window.results')) as Results;
    await page.close();
    return { results, console: reports.console };
  }

  test('from an allowed origin: fetch with Authorization and If-Match, reading ETag, Location, Link and X-Request-Id', async (t) => {
    if (!haveChromium(t)) return;
    const { results, console } = await runPage(allowedOrigin);
    const { create, createAnother, change, staleChange, firstPage, stranger, ping } = results as Record<string, Record<string, unknown>>;
    assert.equal(ping?.['status'], 200);
    assert.equal(create?.['status'], 201, JSON.stringify(create));
    assert.match(String(create?.['location']), /^\/api\/products\/\d+$/);
    assert.equal(create?.['etag'], '"1"');
    assert.equal(create?.['requestId'], 'from-the-page-1');
    assert.equal(createAnother?.['status'], 201);
    assert.deepEqual([change?.['status'], change?.['etag']], [200, '"2"']);
    // A lost update is refused, and the page can read why.
    assert.deepEqual([staleChange?.['status'], (staleChange?.['body'] as { code?: string } | undefined)?.code], [412, 'precondition_failed']);
    assert.equal(firstPage?.['status'], 200);
    assert.match(String(firstPage?.['link']), /^<\/api\/products\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    assert.match(String(firstPage?.['requestId']), /^[A-Za-z0-9._:-]{1,128}$/);
    assert.deepEqual([stranger?.['status'], stranger?.['wwwAuthenticate']], [401, 'Bearer']);
    // Cross-Origin-Resource-Policy: same-origin stops what is not CORS (no-cors), and only that.
    assert.match(String(results['noCors']?.['error']), /^TypeError/);
    assert.ok(console.some((line) => line.includes('ERR_BLOCKED_BY_RESPONSE.NotSameOrigin')), console.join('\n'));
    // Cross-Origin-Opener-Policy: same-origin severs a window opened on the API, and touches no fetch.
    assert.equal(results['popup']?.['closed'], true, JSON.stringify(results['popup']));
    assert.ok(!console.some((line) => line.includes('CORS')), console.join('\n'));
  });

  test('the browser preflighted without the credential, and the service answered 204', async (t) => {
    if (!haveChromium(t)) return;
    api.app.logger.flush();
    const preflights = api.logs.filter((line) => (line['req'] as { method?: string } | undefined)?.method === 'OPTIONS');
    assert.ok(preflights.length > 0, 'Chromium sent preflights');
    for (const line of preflights) {
      assert.equal((line['res'] as { statusCode: number }).statusCode, 204);
      assert.equal(line['caller'], undefined);
    }
  });

  test('from an origin not allowed: the browser refuses every call, and nothing is written', async (t) => {
    if (!haveChromium(t)) return;
    const count = async (): Promise<number> =>
      ((await (await fetch(`${api.url}/api/products?limit=200`, { headers: { authorization: `Bearer ${WRITER}` } })).json()) as unknown[]).length;
    const before = await count();
    const { results, console } = await runPage(otherOrigin);
    for (const name of ['ping', 'create', 'firstPage', 'stranger']) assert.match(String(results[name]?.['error']), /^TypeError: Failed to fetch/, name);
    assert.equal(await count(), before);
    assert.ok(console.some((line) => line.includes('blocked by CORS policy')), console.join('\n'));
  });
});

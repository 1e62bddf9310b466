import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { BROWSER_DEADLINE_MS, haveChromium, launchChromium, type TestBrowser, watchPage } from '../support/browser.ts';
import { WRITER, writersAndReaders } from '../support/test-credentials.ts';

// SVC_AUTH=keys with an embedding program's credential check (README: Embedding): the page is open,
// every operation needs the key typed into it, as it will with the service's own API keys.
describe('GET /api/docs in Chromium', () => {
  let server: AppServer;
  let chromium: TestBrowser | null = null;
  before(async () => {
    server = await startAppServer({ SVC_AUTH: 'keys' }, { credentials: writersAndReaders });
  });
  after(async () => {
    await chromium?.close();
    await server.stop();
  });

  async function open(path = '/api/docs'): Promise<{ page: Page; reports: Awaited<ReturnType<typeof watchPage>> }> {
    chromium ??= await launchChromium();
    const page = await chromium.browser.newPage();
    const reports = await watchPage(page);
    const response = await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
    assert.equal(response?.status(), 200);
    return { page, reports };
  }

  test('renders every operation with no console error, no uncaught error, no CSP violation and no failed load', async (t) => {
    if (!haveChromium(t)) return;
    const { page, reports } = await open();
    const shown = (await page.evaluate(`[...document.querySelectorAll('section.operation h3')].map((h) => h.textContent)`)) as string[];
    const documented = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(documented.paths).flatMap(([path, item]) => Object.keys(item).filter((key) => key !== 'parameters').map((method) => `${method.toUpperCase()} ${path}`));
    assert.deepEqual(shown.sort(), expected.sort());
    // The script ran: the forms are shown.
    assert.equal(await page.evaluate(`document.querySelectorAll('form.try:not([hidden])').length`), expected.length);
    assert.deepEqual(reports.console, []);
    assert.deepEqual(reports.errors, []);
    assert.deepEqual(reports.failedRequests, []);
    assert.deepEqual(await reports.violations(), []);
    await page.close();
  });

  test('the violation listener works: a script the policy does not name is blocked and reported', async (t) => {
    if (!haveChromium(t)) return;
    const { page, reports } = await open();
    await page.evaluate(`(() => { const s = document.createElement('script'); s.textContent = 'window.ran = true'; document.body.append(s); })()`);
    assert.equal(await page.evaluate('window.ran === true'), false);
    await page.waitForFunction('window.__cspViolations.length > 0', { timeout: BROWSER_DEADLINE_MS, polling: 100 });
    assert.match((await reports.violations())[0] ?? '', /^script-src/);
    await page.close();
  });

  test('its form creates a product and shows the 201 with its Location and ETag; the key stays in the page', async (t) => {
    if (!haveChromium(t)) return;
    const { page, reports } = await open('/api/docs#op-createProduct');
    await page.type('#credential', WRITER);
    await page.click('#op-createProduct form.try button[type="submit"]');
    const status = '#op-createProduct .answer-status';
    await page.waitForFunction(`document.querySelector('${status}').textContent.startsWith('201')`, { timeout: BROWSER_DEADLINE_MS, polling: 100 });
    assert.equal(await page.$eval(status, (element) => element.textContent), '201 Created');
    const headers = await page.$eval('#op-createProduct .answer-headers', (element) => element.textContent ?? '');
    const location = /^location: (\/api\/products\/\d+)$/m.exec(headers)?.[1];
    assert.ok(location !== undefined, headers);
    assert.match(headers, /^etag: "1"$/m);
    const body = JSON.parse(await page.$eval('#op-createProduct .answer-body', (element) => element.textContent ?? '')) as { id: number; name: string };
    assert.equal(body.name, 'Desk lamp');
    // It is real: the service has it.
    const read = await fetch(`${server.url}${location}`, { headers: { authorization: `Bearer ${WRITER}` } });
    assert.deepEqual([read.status, ((await read.json()) as { id: number }).id], [200, body.id]);
    const kept = await page.evaluate(`[localStorage.length, sessionStorage.length, document.cookie, location.href.includes(${JSON.stringify(WRITER)})]`);
    assert.deepEqual(kept, [0, 0, '', false]);
    assert.deepEqual([reports.console, reports.errors, await reports.violations()], [[], [], []]);
    await page.close();
  });

  test('without a key the form shows the 401 and its WWW-Authenticate', async (t) => {
    if (!haveChromium(t)) return;
    const { page } = await open('/api/docs#op-listProducts');
    await page.click('#op-listProducts form.try button[type="submit"]');
    await page.waitForFunction(`document.querySelector('#op-listProducts .answer-status').textContent.startsWith('401')`, { timeout: BROWSER_DEADLINE_MS, polling: 100 });
    assert.match(await page.$eval('#op-listProducts .answer-headers', (element) => element.textContent ?? ''), /^www-authenticate: Bearer$/m);
    await page.close();
  });

  test('each API version\'s page: its form sends that version and shows the answer made in it; #versions links to the others', async (t) => {
    if (!haveChromium(t)) return;
    const versions = server.app.versions.servedAt().map((view) => view.id);
    for (const version of versions) {
      const { page, reports } = await open(`/api/docs?version=${version}#op-createProduct`);
      await page.type('#credential', WRITER);
      await page.click('#op-createProduct form.try button[type="submit"]');
      const status = '#op-createProduct .answer-status';
      await page.waitForFunction(`document.querySelector('${status}').textContent.startsWith('201')`, { timeout: BROWSER_DEADLINE_MS, polling: 100 });
      const headers = await page.$eval('#op-createProduct .answer-headers', (element) => element.textContent ?? '');
      assert.match(headers, new RegExp(`^api-version: ${version}$`, 'm'), `${version}: the answer is made in the version shown`);
      // The body sent is the version's own example, and the product answered is in the version's shape.
      const body = JSON.parse(await page.$eval('#op-createProduct .answer-body', (element) => element.textContent ?? '')) as Record<string, unknown>;
      const shown = (await (await fetch(`${server.url}/api/openapi.json?version=${version}`)).json()) as { components: { schemas: { Product: { properties: object } } } };
      assert.deepEqual(Object.keys(body), Object.keys(shown.components.schemas.Product.properties), version);
      const links = (await page.$$eval('#versions ~ .table a', (anchors) => anchors.map((anchor) => anchor.getAttribute('href')))) as string[];
      assert.deepEqual(links, versions.filter((other) => other !== version).map((other) => `/api/docs?version=${other}`));
      assert.deepEqual([reports.console, reports.errors, reports.failedRequests, await reports.violations()], [[], [], [], []], version);
      await page.close();
    }
  });

  test('without JavaScript every operation, example and error code is readable, and no form is shown', async (t) => {
    if (!haveChromium(t)) return;
    chromium ??= await launchChromium();
    const page = await chromium.browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.goto(`${server.url}/api/docs`);
    const text = (await page.evaluate('document.body.innerText')) as string;
    for (const expected of ['POST /api/products', 'Create a product', 'idempotency_key_reused', '"priceInCents": 1999', 'Idempotency-Key', '422']) {
      assert.ok(text.includes(expected), `the page says ${JSON.stringify(expected)}`);
    }
    assert.equal(await page.evaluate(`document.querySelectorAll('form:not([hidden])').length`), 0);
    await page.close();
  });
});

// `npm run docs:screenshot`: writes docs/images/docs-page.png, the picture of the API's own page the
// README shows. It serves the API on a throwaway SQLite database, opens GET /api/docs in Debian's
// Chromium (as the browser tests do), sends the page's "Create a product" form and photographs it.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startAppServer } from '../test/support/app-server.ts';
import { BROWSER_DEADLINE_MS, launchChromium } from '../test/support/browser.ts';
import { WRITER, writersAndReaders } from '../test/support/test-credentials.ts';

const output = fileURLToPath(new URL('../docs/images/docs-page.png', import.meta.url));
const server = await startAppServer({ SVC_AUTH: 'keys' }, { credentials: writersAndReaders });
const chromium = await launchChromium();
try {
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1440, height: 1000, deviceScaleFactor: 1 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  await page.goto(`${server.url}/api/docs#op-createProduct`);
  await page.type('#credential', WRITER);
  await page.click('#op-createProduct form.try button[type="submit"]');
  await page.waitForFunction(`document.querySelector('#op-createProduct .answer-status').textContent.startsWith('201')`, { timeout: BROWSER_DEADLINE_MS, polling: 100 });
  // The statuses of the operation, its form, the 201 and its headers in view, beside the sidebar.
  await page.evaluate(`document.querySelector('#op-createProduct form.try').scrollIntoView({ block: 'start' }); window.scrollBy(0, -300)`);
  mkdirSync(fileURLToPath(new URL('../docs/images/', import.meta.url)), { recursive: true });
  await page.screenshot({ path: output as `${string}.png` });
  console.log(`wrote ${output}`);
} finally {
  await chromium.close();
  await server.stop();
}

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's Chromium: the browser the tests drive. Nothing is ever downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

/** How long a page may take to load or show something: generous, for a machine under load. */
export const BROWSER_DEADLINE_MS = 60_000;

const INSTALL = 'install it to run the browser tests: `apt-get install chromium` (Debian, Ubuntu)';

/**
 * Whether Chromium is installed. Missing, the test is skipped with a message saying how to
 * install it; under CI=true a missing Chromium is a failure, so CI never skips the browser tests.
 */
export function haveChromium(t: TestContext): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['CI'] === 'true') throw new Error(`${CHROMIUM} is not installed but CI=true; ${INSTALL}`);
  t.skip(`${CHROMIUM} not found; ${INSTALL}`);
  return false;
}

/** A headless Chromium with a profile of its own, removed on close. */
export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** Starts Chromium headless, with a fresh profile and nothing that talks to the network by itself. */
export async function launchChromium(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
  ];
  try {
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args, timeout: 60_000 });
    return {
      browser,
      async close() {
        await browser.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/** What a page reported: console errors and warnings, uncaught errors, CSP violations, failed loads. */
export interface PageReports {
  console: string[];
  errors: string[];
  failedRequests: string[];
  /** The CSP violations the page saw (its `securitypolicyviolation` events), read from the page. */
  violations(): Promise<string[]>;
}

// Installed before any script of the page runs, so a violation by the page's first line is caught too.
const LISTEN_FOR_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__cspViolations.push(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at line ' + event.lineNumber);
  });
`;

/** Listens to everything `page` reports that would be a defect of the page. */
export async function watchPage(page: Page): Promise<PageReports> {
  page.setDefaultTimeout(BROWSER_DEADLINE_MS);
  const reports = { console: [] as string[], errors: [] as string[], failedRequests: [] as string[] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') reports.console.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => reports.errors.push(String(error)));
  page.on('requestfailed', (request) => reports.failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? ''}`));
  await page.evaluateOnNewDocument(LISTEN_FOR_VIOLATIONS);
  return { ...reports, violations: () => page.evaluate('window.__cspViolations ?? []') as Promise<string[]> };
}

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { buildDocsPage } from '../../src/docs-page/page.ts';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import { loadConfig } from '../../src/config.ts';
import { openApiOptionsFor } from '../../src/openapi/options.ts';
import { pageVersions } from '../../src/openapi/routes.ts';
import { documentOf } from '../openapi/documents.ts';
import { type AppServer, startAppServer } from '../support/app-server.ts';
import { writersAndReaders } from '../support/test-credentials.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

/** The text of every `<tag>` element of `html`. */
function elements(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1] ?? '');
}

let server: AppServer;
// With SVC_AUTH on: the page is one of the open endpoints.
// Rate limiting on: a document (and so a page) unlike the default one.
const env = { SVC_AUTH: 'keys', SVC_CORS_ORIGINS: 'https://app.example.com', SVC_RATE_LIMIT: '1000' };
before(async () => {
  server = await startAppServer(env, { credentials: writersAndReaders });
});
after(() => server.stop());

test('GET /api/docs is open: one HTML page, no credential needed', async () => {
  const response = await fetch(`${server.url}/api/docs`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await response.text();
  assert.match(html, /^<!doctype html>\n<html lang="en">/);
  assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(html));
});

test('its policy allows exactly its one inline script and one style, by hash, and requests to itself only', async () => {
  const response = await fetch(`${server.url}/api/docs`);
  const html = await response.text();
  const scripts = elements(html, 'script');
  const styles = elements(html, 'style');
  assert.equal(scripts.length, 1);
  assert.equal(styles.length, 1);
  const expected =
    `default-src 'none'; script-src 'sha256-${sha256(scripts[0] ?? '')}'; style-src 'sha256-${sha256(styles[0] ?? '')}'; ` +
    "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  assert.equal(response.headers.get('content-security-policy'), expected);
  // Nothing from anywhere else, and nothing the policy would block: no src, no style or on… attribute.
  assert.doesNotMatch(html, /\ssrc=/);
  assert.doesNotMatch(html, /\sstyle=/);
  assert.doesNotMatch(html, /\son[a-z]+=/);
  // Links stay on this page, on its document, or on the page of another API version.
  for (const [, href] of html.matchAll(/\shref="([^"]*)"/g)) assert.match(href ?? '', /^(#[A-Za-z0-9_-]+|\/api\/(openapi\.json|docs)\?version=\d{4}-\d{2}-\d{2}|data:,)$/);
});

test('every other header of every response is the same as on JSON responses; HEAD too', async () => {
  for (const method of ['GET', 'HEAD']) {
    const response = await fetch(`${server.url}/api/docs`, { method });
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      if (name !== 'content-security-policy') assert.equal(response.headers.get(name), value, `${method} ${name}`);
    }
    assert.match(response.headers.get('x-request-id') ?? '', /^[A-Za-z0-9._:-]{1,128}$/);
    assert.equal(response.headers.get('vary'), 'Origin, Api-Version');
    assert.equal(response.headers.get('api-version'), server.app.versions.all[0]?.id);
    assert.equal(response.headers.get('server'), null);
    await response.arrayBuffer();
  }
});

test('the page is the served document: a section for every operation it lists, named by operationId', async () => {
  const html = await (await fetch(`${server.url}/api/docs`)).text();
  const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
  const ids = Object.values(document.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([key]) => key !== 'parameters')
      .map(([, operation]) => operation.operationId),
  );
  const sections = [...html.matchAll(/<section class="operation" id="op-([A-Za-z0-9_-]+)">/g)].map((match) => match[1]);
  assert.deepEqual(sections.sort(), ids.sort());
  assert.ok(ids.includes('getDocsPage'), 'the page documents itself');
});

test('the page is made from the very document the service serves, as configured', async () => {
  const html = await (await fetch(`${server.url}/api/docs`)).text();
  const served = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Record<string, unknown>;
  const versions = pageVersions(openApiOptionsFor(loadConfig(env), server.app.routes, server.app.resources, server.app.versions));
  assert.equal(html, buildDocsPage(served, versions).html);
  assert.notEqual(html, buildDocsPage(documentOf('off', false), versions).html);
  assert.ok(html.includes('<code>rate_limited</code>'));
});

// The rows of the page's #versions table: each version's id and whether it is the one shown.
function versionRows(html: string): { id: string; shown: boolean; link: string | null }[] {
  const start = html.indexOf('<h2 class="tag" id="versions">');
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(/<tr( class="shown")?><td>(?:<a href="([^"]+)">)?(?:<strong>)?<code>([^<]+)<\/code>/g)].map((row) => ({ id: row[3] ?? '', shown: row[1] !== undefined, link: row[2] ?? null }));
}

test('the page shows one API version: ?version= or Api-Version chooses it; #versions lists every one newest first, the others linked; every form sends the one shown', async () => {
  const served = server.app.versions.servedAt().map((view) => view.id);
  const { summary } = server.app.versions.newest;
  for (const id of served) {
    for (const ask of [() => fetch(`${server.url}/api/docs?version=${id}`), () => fetch(`${server.url}/api/docs`, { headers: { 'api-version': id } })]) {
      const answer = await ask();
      assert.equal(answer.headers.get('api-version'), id);
      const html = await answer.text();
      assert.deepEqual(versionRows(html), served.map((other) => ({ id: other, shown: other === id, link: other === id ? null : `/api/docs?version=${other}` })));
      assert.ok(html.includes(`<a href="/api/openapi.json?version=${id}">`), 'its own document');
      // Every form's Api-Version is the version shown, sent with the rest and not editable.
      const fields = [...html.matchAll(/<input name="header:Api-Version"[^>]*>/g)].map((match) => match[0]);
      assert.equal(fields.length, html.split('<form class="try"').length - 1);
      for (const field of fields) assert.match(field, new RegExp(` value="${id}" readonly>$`));
    }
  }
  const newest = await (await fetch(`${server.url}/api/docs?version=${served[0] ?? ''}`)).text();
  assert.ok(newest.includes(summary.replaceAll('"', '&#34;').replaceAll("'", '&#39;')), 'each version with what it changed');
});

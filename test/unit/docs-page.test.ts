import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdown } from '../../src/docs-page/markdown.ts';
import { buildDocsPage } from '../../src/docs-page/page.ts';
import { documentOf } from '../openapi/documents.ts';

type Json = Record<string, unknown>;
// API keys and rate limiting on: every operation and response the document can list.
const ALL_ON = documentOf('keys');

/** The HTML of the section of the operation `id`. */
function sectionOf(html: string, id: string): string {
  const start = html.indexOf(`<section class="operation" id="op-${id}">`);
  assert.notEqual(start, -1, `a section for ${id}`);
  return html.slice(start, html.indexOf('</section>', start));
}

test('markdown: code, strong, paragraphs and tables; any markup in the text is escaped', () => {
  assert.equal(markdown('A `code` and **strong**.\n\nNext'), '<p>A <code>code</code> and <strong>strong</strong>.</p>\n<p>Next</p>');
  assert.equal(markdown('<img src=x onerror="alert(1)"> `<b>`'), '<p>&#60;img src=x onerror=&#34;alert(1)&#34;&#62; <code>&#60;b&#62;</code></p>');
  assert.match(markdown('| a | b |\n|---|---|\n| `1` | 2 |'), /^<div class="table"><table><thead><tr><th>a<\/th><th>b<\/th><\/tr><\/thead><tbody><tr><td><code>1<\/code><\/td><td>2<\/td><\/tr><\/tbody><\/table><\/div>$/);
});

test('every operation of the document shows each of its statuses, error codes and examples', () => {
  const { html } = buildDocsPage(ALL_ON);
  for (const item of Object.values(ALL_ON['paths'] as Record<string, Json>)) {
    for (const [method, value] of Object.entries(item).filter(([key]) => key !== 'parameters')) {
      const operation = value as Json;
      const section = sectionOf(html, String(operation['operationId']));
      assert.ok(section.includes(`>${method.toUpperCase()}</span>`), `${String(operation['operationId'])} shows its method`);
      for (const [status, response] of Object.entries(operation['responses'] as Record<string, Json>)) {
        assert.ok(section.includes(`>${status}</span>`), `${String(operation['operationId'])} ${status}`);
        const problems = (response['content'] as Record<string, Json> | undefined)?.['application/problem+json'];
        for (const code of Object.keys((problems?.['examples'] as Json | undefined) ?? {})) {
          assert.ok(section.includes(`<code>${code}</code>`), `${String(operation['operationId'])} ${status} ${code}`);
        }
      }
    }
  }
  // An example of each kind: a request body, a success, a field error.
  const create = sectionOf(html, 'createProduct');
  assert.ok(create.includes('&#34;priceInCents&#34;: 1999'));
  assert.ok(create.includes('priceInCents must be at least 0'));
  assert.ok(sectionOf(html, 'listProducts').includes('limit must be an integer from 1 to 200'));
});

test('text from the document never becomes markup: one script, whatever a description or example says', () => {
  const hostile = '</script><script>alert(1)</script><img src=x>';
  const document = {
    openapi: '3.1.1',
    info: { title: hostile, version: '1', description: hostile },
    paths: {
      '/x': {
        get: {
          operationId: 'x',
          summary: hostile,
          description: hostile,
          parameters: [{ name: hostile, in: 'query', description: hostile, schema: { type: 'string', pattern: hostile } }],
          responses: { '200': { description: hostile, content: { 'application/json': { schema: { type: 'string' }, example: hostile } } } },
        },
      },
    },
  };
  const { html } = buildDocsPage(document);
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.equal(html.match(/<img/g), null);
});

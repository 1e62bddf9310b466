import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES } from '../support/resources.ts';
import { markdown } from '../../src/docs-page/markdown.ts';
import { buildDocsPage, type PageVersions } from '../../src/docs-page/page.ts';
import { documentOf } from '../openapi/documents.ts';

type Json = Record<string, unknown>;
// API keys and rate limiting on: every operation and response the document can list.
const ALL_ON = documentOf('keys');
// The versions the page of a document lists: the document's own, alone.
const onlyItsOwn = (document: Json): PageVersions => {
  const id = String((document['info'] as Json)['version']);
  return { shown: id, served: [{ id, summary: `What ${id} changed.`, sunset: null }] };
};

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
  const { html } = buildDocsPage(ALL_ON, onlyItsOwn(ALL_ON));
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
  // An example of each kind, for every resource: a request body, a success, a field error.
  for (const resource of RESOURCES) {
    const create = sectionOf(html, `create${resource.title}`);
    const [field, spec] = Object.entries(resource.fields)[0] ?? [];
    assert.ok(field !== undefined && spec !== undefined);
    assert.ok(create.includes(`&#34;${field}&#34;: ${JSON.stringify(spec.example).replaceAll('"', '&#34;')}`), `${resource.plural}: the example body`);
    assert.ok(create.includes(`${field} is required`), `${resource.plural}: a field error`);
    assert.ok(sectionOf(html, `list${resource.plural[0]?.toUpperCase()}${resource.plural.slice(1)}`).includes('limit must be an integer from 1 to 200'));
  }
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
  const { html } = buildDocsPage(document, { shown: hostile, served: [{ id: hostile, summary: hostile, sunset: hostile }, { id: `${hostile}2`, summary: hostile, sunset: null }] });
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.equal(html.match(/<img/g), null);
});

// Every string of a document made hostile, the served document's shape kept: each string value but
// the few the page reads as structure (`type` and `in` keep their meaning, a `$ref` still points at
// its target, renamed), and each name the document chooses (paths, statuses, media types, headers,
// parameters, members, examples, schemas, security schemes) get HOSTILE appended.
const HOSTILE = `"'></script><script>alert(1)</script><img src=x onerror=alert(1)>`;
const NAME_MAPS = new Set(['paths', 'responses', 'content', 'headers', 'examples', 'properties', 'schemas', 'parameters', 'securitySchemes', 'requestBodies']);
const KEPT = new Set(['type', 'in']);
const pointerSafe = (text: string): string => text.replaceAll('~', '~0').replaceAll('/', '~1');

// A `$ref` renamed as its target was: `#/components/<kind>/<name>`.
function renamedRef(ref: string): string {
  const parts = ref.split('/');
  assert.equal(parts.length, 4, `a $ref of the form #/components/<kind>/<name>: ${ref}`);
  return [...parts.slice(0, 3), `${parts[3]}${pointerSafe(HOSTILE)}`].join('/');
}

function hostileEverywhere(node: unknown, key: string, names: boolean, counter: { strings: number }): unknown {
  if (typeof node === 'string') {
    if (key === '$ref') return renamedRef(node);
    if (KEPT.has(key)) return node;
    counter.strings += 1;
    return `${node}${HOSTILE}`;
  }
  // The objects of a `security` list are named by their keys, the schemes.
  if (Array.isArray(node)) return node.map((item) => hostileEverywhere(item, key, key === 'security', counter));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([name, value]) => {
      // In a map of names, each value is an object of its own; elsewhere a field that is such a map makes one.
      const nextNames = !names && NAME_MAPS.has(name) && typeof value === 'object' && value !== null && !Array.isArray(value);
      if (names) counter.strings += 1;
      return [names ? `${name}${HOSTILE}` : name, hostileEverywhere(value, names ? '' : name, nextNames, counter)];
    }),
  );
}

test('no string of the served document becomes markup, wherever it is: values and names, every one of them hostile', () => {
  const namedExamples = JSON.stringify(ALL_ON).match(/"summary":/g)?.length ?? 0;
  assert.ok(namedExamples > 10, 'the document has summaries, of operations and of named examples');
  const counter = { strings: 0 };
  const document = hostileEverywhere(ALL_ON, '', false, counter) as Json;
  const { html } = buildDocsPage(document, { shown: HOSTILE, served: [{ id: HOSTILE, summary: HOSTILE, sunset: HOSTILE }, { id: `${HOSTILE}2`, summary: HOSTILE, sunset: null }] });
  assert.equal(html.match(/<script/g)?.length, 1, 'only the page script');
  assert.equal(html.match(/<img/g), null);
  // The walk reached the page: the hostile text is shown, escaped, all over it.
  const shown = html.split('&#60;img src=x onerror=alert(1)&#62;').length - 1;
  assert.ok(shown > 1000, `the escaped text shown ${shown} times, of ${counter.strings} strings`);
  const summaries = [...html.matchAll(/<details[^>]*><summary><code>[^<]*<\/code> ([^<]*)<\/summary>/g)].map((match) => match[1] ?? '');
  assert.ok(summaries.length > 10 && summaries.every((summary) => summary.includes('&#60;script&#62;')), 'the summaries of named examples shown, escaped');
});

test('the page\'s #versions: every version given, newest first, the one shown marked, a sunset said, the others linked to their own page', () => {
  const versions: PageVersions = {
    shown: '2026-01-02',
    served: [{ id: '2026-03-04', summary: 'Lists are objects.', sunset: null }, { id: '2026-01-02', summary: 'The first.', sunset: '2027-06-30T00:00:00.000Z' }],
  };
  const { html } = buildDocsPage(ALL_ON, versions);
  const start = html.indexOf('<h2 class="tag" id="versions">');
  assert.notEqual(start, -1, 'where the Link of a deprecation points');
  const section = html.slice(start, html.indexOf('</table>', start));
  const rows = section.slice(section.indexOf('<tbody>'));
  assert.ok(rows.indexOf('2026-03-04') < rows.indexOf('2026-01-02'), 'newest first');
  assert.ok(section.includes('<a href="/api/docs?version=2026-03-04"><code>2026-03-04</code></a>'));
  assert.ok(section.includes('<tr class="shown"><td><strong><code>2026-01-02</code></strong> <small>shown</small></td><td>The first.</td><td><span class="required">sunset 2027-06-30T00:00:00.000Z</span></td></tr>'));
  assert.ok(html.includes('<li><a href="#versions">Versions</a></li>'), 'in the sidebar');
});

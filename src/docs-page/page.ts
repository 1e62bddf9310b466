import { createHash } from 'node:crypto';
import { anchor, escapeHtml, type Json, objectAt, prettyJson, stringAt } from './html.ts';
import { markdown } from './markdown.ts';
import { type Operation, operationsOf } from './model.ts';
import { methodBadge, operationDocs } from './operation-docs.ts';
import { propertyRows, schemaText } from './schema-text.ts';
import { PAGE_SCRIPT } from './script.ts';
import { PAGE_STYLE } from './style.ts';
import { tryForm } from './try-form.ts';
import { documentOf, type PageVersions, versionsSection } from './versions.ts';

export type { PageVersions } from './versions.ts';

/** The API's own page: its HTML and the Content-Security-Policy that lets exactly its own script and style run. */
export interface DocsPage {
  readonly html: string;
  readonly csp: string;
}

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The operations grouped by tag, in the order the document lists its tags. */
function byTag(document: Json, operations: readonly Operation[]): { name: string; description: string }[] {
  const declared = (Array.isArray(document['tags']) ? document['tags'] : []).map(objectAt).map((tag) => ({ name: stringAt(tag['name']), description: stringAt(tag['description']) }));
  const used = [...new Set(operations.map((operation) => operation.tag))];
  return [...declared.filter((tag) => used.includes(tag.name)), ...used.filter((name) => !declared.some((tag) => tag.name === name)).map((name) => ({ name, description: '' }))];
}

function sidebar(document: Json, tags: readonly { name: string }[], operations: readonly Operation[], versions: PageVersions): string {
  const info = objectAt(document['info']);
  const groups = tags.map(({ name }) => {
    const links = operations
      .filter((operation) => operation.tag === name)
      .map((operation) => `<li><a href="#${anchor('op', operation.id)}" title="${escapeHtml(operation.summary)}">${methodBadge(operation.method)}<span class="path">${escapeHtml(operation.path)}</span></a></li>`);
    return `<h2>${escapeHtml(name)}</h2><ul>${links.join('')}</ul>`;
  });
  return (
    `<nav aria-label="Operations"><p class="brand">${escapeHtml(stringAt(info['title']))}</p>` +
    `<p class="version">version ${escapeHtml(stringAt(info['version']))} · OpenAPI ${escapeHtml(stringAt(document['openapi']))}</p>` +
    '<form id="credential-box" hidden><label for="credential">Bearer token or API key</label>' +
    '<input id="credential" type="password" autocomplete="off" spellcheck="false" placeholder="sent as Authorization: Bearer …">' +
    '<p>Kept in this page only: never stored, gone when you leave or reload.</p></form>' +
    '<h2>Overview</h2><ul><li><a href="#overview">Introduction and errors</a></li><li><a href="#versions">Versions</a></li><li><a href="#schemas">Schemas</a></li>' +
    `<li><a href="${escapeHtml(documentOf(versions.shown))}">The OpenAPI document (JSON)</a></li></ul>${groups.join('')}</nav>`
  );
}

function schemaSection(name: string, schema: Json): string {
  const rows = propertyRows(schema);
  const table = rows === '' ? '' : `<div class="table"><table><thead><tr><th>member</th><th></th><th>type</th><th>description</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const examples = (Array.isArray(schema['examples']) ? schema['examples'] : []).map((example) => `<pre><code>${escapeHtml(prettyJson(example))}</code></pre>`);
  return (
    `<section class="schema" id="${anchor('schema', name)}"><h3>${escapeHtml(name)}</h3>${markdown(stringAt(schema['description']))}` +
    `<p class="media">${schemaText(schema)}</p>${table}${examples.join('')}</section>`
  );
}

function mainContent(document: Json, tags: readonly { name: string; description: string }[], operations: readonly Operation[], versions: PageVersions): string {
  const info = objectAt(document['info']);
  const sections = tags.map(({ name, description }) => {
    const ops = operations.filter((operation) => operation.tag === name);
    const rendered = ops.map((operation) => `<section class="operation" id="${anchor('op', operation.id)}">${operationDocs(operation)}${tryForm(operation)}</section>`);
    return `<h2 class="tag" id="${anchor('tag', name)}">${escapeHtml(name)}</h2>${markdown(description)}${rendered.join('')}`;
  });
  const schemas = Object.entries(objectAt(objectAt(document['components'])['schemas'])).map(([name, schema]) => schemaSection(name, objectAt(schema)));
  return (
    `<main><header id="overview"><h1>${escapeHtml(stringAt(info['title']))}</h1><p class="lead">${escapeHtml(stringAt(info['summary']))}</p>` +
    `${markdown(stringAt(info['description']))}</header>${versionsSection(versions)}${sections.join('')}<h2 class="tag" id="schemas">Schemas</h2>${schemas.join('')}</main>`
  );
}

/**
 * Makes the page from the OpenAPI document the service serves (so the two cannot drift): every
 * operation with its parameters, bodies, examples, statuses and error codes, readable without
 * JavaScript, and a form per operation for when it runs; and the API versions served, the document's
 * (`versions.shown`) among them, each a link to its own page. Nothing is loaded from anywhere else.
 */
export function buildDocsPage(document: Json, versions: PageVersions): DocsPage {
  if (PAGE_SCRIPT.includes('</') || PAGE_STYLE.includes('</')) throw new Error('the page script and style must not close their element');
  const operations = operationsOf(document);
  const tags = byTag(document, operations);
  const title = `${stringAt(objectAt(document['info'])['title'])}: API`;
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style>${PAGE_STYLE}</style></head>` +
    `<body>${sidebar(document, tags, operations, versions)}${mainContent(document, tags, operations, versions)}<script>${PAGE_SCRIPT}</script></body></html>\n`;
  const csp = [
    "default-src 'none'",
    `script-src ${hashOf(PAGE_SCRIPT)}`,
    `style-src ${hashOf(PAGE_STYLE)}`,
    // The empty icon above, so the browser asks for no /favicon.ico.
    'img-src data:',
    "connect-src 'self'",
    "base-uri 'none'",
    // The forms are sent by the script with fetch, never submitted by the browser.
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, csp };
}

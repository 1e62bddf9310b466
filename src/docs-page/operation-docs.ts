import { anchor, escapeHtml, prettyJson } from './html.ts';
import { markdown } from './markdown.ts';
import type { Media, Operation, Outcome, Parameter } from './model.ts';
import { schemaText } from './schema-text.ts';

/** A method as a coloured badge. */
export function methodBadge(method: string): string {
  return `<span class="method method-${escapeHtml(method.toLowerCase())}">${escapeHtml(method)}</span>`;
}

function parametersTable(parameters: readonly Parameter[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map(
    (parameter) =>
      `<tr><td><code>${escapeHtml(parameter.name)}</code></td><td>${parameter.in}${parameter.required ? ', <span class="required">required</span>' : ''}</td>` +
      `<td>${schemaText(parameter.schema)}</td><td>${markdown(parameter.description)}</td></tr>`,
  );
  return `<h4>Parameters</h4><div class="table"><table><thead><tr><th>name</th><th>in</th><th>type</th><th>description</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function examplesOf(media: Media, open: boolean): string {
  return media.examples
    .map((example) => {
      const code = `<pre><code>${escapeHtml(prettyJson(example.value))}</code></pre>`;
      if (media.examples.length === 1 && example.name === 'example') return code;
      return `<details${open ? ' open' : ''}><summary><code>${escapeHtml(example.name)}</code> ${escapeHtml(example.summary)}</summary>${code}</details>`;
    })
    .join('');
}

function mediaBlock(media: readonly Media[], open: boolean): string {
  return media.map((one) => `<p class="media"><code>${escapeHtml(one.type)}</code>: ${schemaText(one.schema)}</p>${examplesOf(one, open)}`).join('');
}

function statusClass(status: string): string {
  return `status status-${escapeHtml(status.charAt(0))}xx`;
}

function outcomeBlock(outcome: Outcome): string {
  const headers = outcome.headers.length === 0 ? '' : `<p class="headers">Headers: ${outcome.headers.map((name) => `<code>${escapeHtml(name)}</code>`).join(' ')}</p>`;
  const success = outcome.status.startsWith('2') || outcome.status.startsWith('3');
  return (
    `<details class="outcome"${success ? ' open' : ''}><summary><span class="${statusClass(outcome.status)}">${escapeHtml(outcome.status)}</span> ${markdown(outcome.description).replace(/^<p>|<\/p>$/g, '')}</summary>` +
    `${headers}${mediaBlock(outcome.media, false)}</details>`
  );
}

function bodyBlock(operation: Operation): string {
  if (operation.body === null) return '';
  const { required, description, media } = operation.body;
  return `<h4>Request body${required ? ' <span class="required">required</span>' : ''}</h4>${markdown(description)}${mediaBlock(media, true)}`;
}

function accessLine(operation: Operation): string {
  if (operation.security.length === 0) return '';
  return `<p class="access">Needs <code>Authorization: Bearer …</code> (${operation.security.map(escapeHtml).join(', ')}); type it at the top of the page to send it.</p>`;
}

/** The documentation of one operation, readable without JavaScript. */
export function operationDocs(operation: Operation): string {
  return (
    `<h3><a class="anchor" href="#${anchor('op', operation.id)}">${methodBadge(operation.method)} <code class="path">${escapeHtml(operation.path)}</code></a></h3>` +
    `<p class="summary">${escapeHtml(operation.summary)}</p>${markdown(operation.description)}${accessLine(operation)}` +
    `${parametersTable(operation.parameters)}${bodyBlock(operation)}<h4>Responses</h4>${operation.outcomes.map(outcomeBlock).join('')}`
  );
}

import { escapeHtml, prettyJson } from './html.ts';
import type { Operation, Parameter } from './model.ts';

// The one value a parameter can have (the `Api-Version` of the document's version), or undefined.
const fixedValue = (parameter: Parameter): string | undefined => (typeof parameter.schema['const'] === 'string' ? parameter.schema['const'] : undefined);

// Each field is named `place:name`, so the script knows where a value goes without a table of its own.
// A parameter with one value is sent with it, shown and not editable: the page documents that value.
function field(parameter: Parameter): string {
  const required = parameter.required ? ' required' : '';
  const type = parameter.schema['type'] === 'integer' ? ' inputmode="numeric"' : '';
  const fixed = fixedValue(parameter);
  const value = fixed === undefined ? '' : ` value="${escapeHtml(fixed)}" readonly`;
  return (
    `<label><span>${escapeHtml(parameter.name)} <small>${parameter.in}</small></span>` +
    `<input name="${escapeHtml(`${parameter.in}:${parameter.name}`)}" autocomplete="off" spellcheck="false"${type}${required}${value}></label>`
  );
}

function bodyFields(operation: Operation): string {
  if (operation.body === null) return '';
  const media = operation.body.media;
  const example = media.find((one) => one.examples.length > 0)?.examples[0]?.value;
  const options = media.map((one) => `<option>${escapeHtml(one.type)}</option>`).join('');
  return (
    `<label><span>Content-Type</span><select name="content-type">${options}</select></label>` +
    `<label class="wide"><span>Body</span><textarea name="body" rows="6" spellcheck="false">${escapeHtml(example === undefined ? '' : prettyJson(example))}</textarea></label>`
  );
}

/**
 * A form that sends the operation to this service (the page's script does it; without JavaScript
 * it stays hidden), and the place where the answer is shown.
 */
export function tryForm(operation: Operation): string {
  // The fixed values, then X-Request-Id, last: the fields a person fills in come first.
  const last = (parameter: Parameter): number => (parameter.name === 'X-Request-Id' ? 2 : Number(fixedValue(parameter) !== undefined));
  const fields = [...operation.parameters].sort((a, b) => last(a) - last(b));
  return (
    `<form class="try" data-method="${escapeHtml(operation.method)}" data-path="${escapeHtml(operation.path)}" hidden>` +
    `<h4>Try it</h4><div class="fields">${fields.map(field).join('')}${bodyFields(operation)}</div>` +
    `<button type="submit">Send ${escapeHtml(operation.method)} ${escapeHtml(operation.path)}</button>` +
    `<div class="answer" hidden><p class="answer-status" role="status"></p><pre class="answer-headers"></pre><pre class="answer-body"></pre></div></form>`
  );
}

import { anchor, escapeHtml, type Json, objectAt, stringAt } from './html.ts';
import { markdown } from './markdown.ts';

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

// `1..200`, `≥ 0`, `≤ 16`: the bounds a schema sets on a number or a length.
function bounds(min: unknown, max: unknown, unit: string): string {
  if (typeof min === 'number' && typeof max === 'number') return `${min}..${max}${unit}`;
  if (typeof min === 'number') return `≥ ${min}${unit}`;
  if (typeof max === 'number') return `≤ ${max}${unit}`;
  return '';
}

function constraints(schema: Json): string[] {
  const found = [bounds(schema['minimum'], schema['maximum'], ''), bounds(schema['minLength'], schema['maxLength'], ' characters'), bounds(schema['minItems'], schema['maxItems'], ' items')];
  if (typeof schema['format'] === 'string') found.push(schema['format']);
  if (schema['additionalProperties'] === false) found.push('no other members');
  return found.filter((text) => text !== '');
}

// One member of a `oneOf`: an integer enum's value with its name (`1 (active)`), or any schema.
function optionText(option: Json): string {
  if (option['const'] === undefined) return schemaText(option);
  const title = typeof option['title'] === 'string' ? ` (${escapeHtml(option['title'])})` : '';
  return `<code>${escapeHtml(JSON.stringify(option['const']))}</code>${title}`;
}

/** A schema in a few words of HTML: its type, bounds and values; a `$ref` as a link to the schema. */
export function schemaText(schema: Json): string {
  const target = stringAt(schema['$ref']);
  if (target !== '') {
    const name = target.split('/').pop() ?? target;
    return `<a href="#${anchor('schema', name)}"><code>${escapeHtml(name)}</code></a>`;
  }
  if (schema['const'] !== undefined) return `<code>${escapeHtml(JSON.stringify(schema['const']))}</code>`;
  const options = list(schema['oneOf']).map(objectAt);
  if (options.length > 0) return options.map(optionText).join(' or ');
  const parts = list(schema['allOf']).map(objectAt);
  if (parts.length > 0) return parts.map(schemaText).filter((text) => text !== '').join(', ');
  if (Array.isArray(schema['enum'])) return `one of ${schema['enum'].map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(', ')}`;
  const properties = objectAt(schema['properties']);
  if (schema['type'] === undefined && Object.keys(properties).length > 0) {
    return Object.entries(properties).map(([name, value]) => `<code>${escapeHtml(name)}</code>: ${schemaText(objectAt(value))}`).join('; ');
  }
  const type = schema['type'] === 'array' ? `array of ${schemaText(objectAt(schema['items']))}` : escapeHtml(stringAt(schema['type']));
  return [type, ...constraints(schema).map(escapeHtml)].filter((text) => text !== '').join(', ');
}

/** The members of an object schema as table rows: name, required, type, description. */
export function propertyRows(schema: Json): string {
  const required = new Set(list(schema['required']).map(stringAt));
  return Object.entries(objectAt(schema['properties']))
    .map(([name, value]) => {
      const property = objectAt(value);
      const needed = required.has(name) ? '<span class="required">required</span>' : 'optional';
      const pattern = typeof property['pattern'] === 'string' ? `<div class="pattern">pattern <code>${escapeHtml(property['pattern'])}</code></div>` : '';
      return `<tr><td><code>${escapeHtml(name)}</code></td><td>${needed}</td><td>${schemaText(property)}${pattern}</td><td>${markdown(stringAt(property['description']))}</td></tr>`;
    })
    .join('');
}

/** Text made safe for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A JSON value as indented text, for a code block. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A JSON object of the OpenAPI document. */
export type Json = { [key: string]: unknown };

/** `value` when it is a JSON object (not an array), else an empty one. */
export function objectAt(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** `value` when it is a string, else ''. */
export function stringAt(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** An id fit for an HTML `id` and a URL fragment. */
export function anchor(prefix: string, name: string): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

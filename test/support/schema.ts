import { isDeepStrictEqual } from 'node:util';

/** A JSON Schema (2020-12 subset) as found in an OpenAPI 3.1 document. */
export type Schema = Readonly<Record<string, unknown>>;

// Keywords that only annotate; anything else unknown is refused, so no rule is silently skipped.
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'example', 'default', 'summary']);
const CHECKED = new Set([
  '$ref', 'allOf', 'oneOf', 'type', 'const', 'enum', 'required', 'properties', 'additionalProperties',
  'items', 'minItems', 'maxItems', 'uniqueItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'format',
]);

/** Follows a local `$ref` such as `#/components/schemas/Product` inside `root`. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) throw new Error(`unresolvable $ref ${ref}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

const codePoints = (text: string): number => [...text].length;

type Check = (value: unknown, schema: Schema, root: unknown, at: string) => string[];

function checkObject(value: unknown, schema: Schema, root: unknown, at: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const object = value as Record<string, unknown>;
  const errors: string[] = [];
  for (const name of (schema['required'] as string[] | undefined) ?? []) {
    if (!Object.hasOwn(object, name)) errors.push(`${at}: missing required member ${name}`);
  }
  const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
  for (const [name, member] of Object.entries(object)) {
    const property = properties[name];
    if (property !== undefined) errors.push(...validate(member, property, root, `${at}/${name}`));
    else if (schema['additionalProperties'] === false) errors.push(`${at}: unexpected member ${name}`);
    else if (typeof schema['additionalProperties'] === 'object') {
      errors.push(...validate(member, schema['additionalProperties'] as Schema, root, `${at}/${name}`));
    }
  }
  return errors;
}

function checkArray(value: unknown, schema: Schema, root: unknown, at: string): string[] {
  if (!Array.isArray(value)) return [];
  const errors: string[] = [];
  const { minItems, maxItems, uniqueItems, items } = schema as { minItems?: number; maxItems?: number; uniqueItems?: boolean; items?: Schema };
  if (minItems !== undefined && value.length < minItems) errors.push(`${at}: fewer than ${minItems} items`);
  if (maxItems !== undefined && value.length > maxItems) errors.push(`${at}: more than ${maxItems} items`);
  if (uniqueItems === true && value.some((item, i) => value.findIndex((other) => isDeepStrictEqual(other, item)) !== i)) errors.push(`${at}: items are not unique`);
  if (items !== undefined) value.forEach((item, i) => errors.push(...validate(item, items, root, `${at}/${i}`)));
  return errors;
}

function checkScalar(value: unknown, schema: Schema, _root: unknown, at: string): string[] {
  const errors: string[] = [];
  const { minimum, maximum, minLength, maxLength, pattern, format } = schema as Record<string, number & string>;
  if (typeof value === 'number') {
    if (minimum !== undefined && value < minimum) errors.push(`${at}: ${value} is below the minimum ${minimum}`);
    if (maximum !== undefined && value > maximum) errors.push(`${at}: ${value} is above the maximum ${maximum}`);
  }
  if (typeof value === 'string') {
    const length = codePoints(value);
    if (minLength !== undefined && length < minLength) errors.push(`${at}: shorter than ${minLength}`);
    if (maxLength !== undefined && length > maxLength) errors.push(`${at}: longer than ${maxLength}`);
    if (pattern !== undefined && !new RegExp(pattern, 'u').test(value)) errors.push(`${at}: ${JSON.stringify(value)} does not match ${pattern}`);
    if (format === 'date-time' && Number.isNaN(Date.parse(value))) errors.push(`${at}: ${JSON.stringify(value)} is not a date-time`);
  }
  return errors;
}

function checkCombinators(value: unknown, schema: Schema, root: unknown, at: string): string[] {
  const errors: string[] = [];
  for (const part of (schema['allOf'] as Schema[] | undefined) ?? []) errors.push(...validate(value, part, root, at));
  const oneOf = schema['oneOf'] as Schema[] | undefined;
  if (oneOf !== undefined) {
    const matching = oneOf.filter((part) => validate(value, part, root, at).length === 0).length;
    if (matching !== 1) errors.push(`${at}: ${JSON.stringify(value)} matches ${matching} of the oneOf schemas, not exactly 1`);
  }
  return errors;
}

function checkValue(value: unknown, schema: Schema, _root: unknown, at: string): string[] {
  const errors: string[] = [];
  const type = schema['type'] as string | string[] | undefined;
  if (type !== undefined && ![type].flat().some((t) => hasType(value, t))) errors.push(`${at}: expected ${String(type)}, got ${typeOf(value)}`);
  if ('const' in schema && !isDeepStrictEqual(value, schema['const'])) errors.push(`${at}: expected ${JSON.stringify(schema['const'])}`);
  const allowed = schema['enum'] as unknown[] | undefined;
  if (allowed !== undefined && !allowed.some((option) => isDeepStrictEqual(option, value))) {
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(allowed)}`);
  }
  return errors;
}

const CHECKS: readonly Check[] = [checkValue, checkObject, checkArray, checkScalar, checkCombinators];

/** Every way `value` breaks `schema` (empty when it conforms); `$ref`s resolve inside `root`. */
export function validate(value: unknown, schema: Schema, root: unknown, at = ''): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!CHECKED.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`schema keyword ${keyword} at ${at || '/'} is not supported`);
  }
  const errors = CHECKS.flatMap((check) => check(value, schema, root, at));
  const ref = schema['$ref'];
  if (typeof ref === 'string') errors.push(...validate(value, resolvePointer(root, ref) as Schema, root, at));
  return errors;
}

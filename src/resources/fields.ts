import { enumRule, type FieldRule, type Fields, fieldError, integerRule, objectRules, textRule } from '../shared/validation.ts';

/** A JSON Schema (the dialect of OpenAPI 3.1), as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/** How a scalar is kept in a column: both engines' generic repositories read and write by it. */
export type ColumnType = 'text' | 'integer' | 'smallint';

/** A value a field's rule refuses, and the code it answers: what the shared tests send. `at` is a member's name, for an object field. */
export interface Refused {
  readonly value: unknown;
  readonly code: string;
  readonly at?: string;
}

/** What every field has: its rules, whether a create must send it, its schema and example. */
interface FieldBase<T> {
  readonly rule: FieldRule<T>;
  /** The rule of a value in a merge patch: the same as `rule`, but an object's members are each optional. */
  readonly patchRule: FieldRule<unknown>;
  readonly required: boolean;
  /** What a create stores when the field is left out (an optional field has one). */
  readonly default: T | undefined;
  readonly example: T;
  /** The field's schema in a representation and a create body; `patchSchema` in a merge patch. */
  readonly schema: JsonSchema;
  readonly patchSchema: JsonSchema;
  /** Schemas the field's schema refers to by name (an enum), added to the document's components. */
  readonly components: Readonly<Record<string, JsonSchema>>;
  readonly refused: readonly Refused[];
}

/** A field kept in one column, named after the field (`priceInCents` → `price_in_cents`) unless `column` says otherwise. */
export interface ScalarField<T> extends FieldBase<T> {
  readonly kind: 'scalar';
  readonly column: string | undefined;
  readonly type: ColumnType;
  /** An integer enum's values: a list may be filtered by it (`?status=2`). */
  readonly choices: readonly number[] | undefined;
  /** An integer enum's values by name (`{ active: 1, archived: 2 }`). */
  readonly named: Readonly<Record<string, number>> | undefined;
}

/** A field whose value is an object of scalars, each member in a column of its own. */
export interface ObjectField<T> extends FieldBase<T> {
  readonly kind: 'object';
  readonly members: Readonly<Record<string, ScalarField<unknown>>>;
}

export type Field<T> = ScalarField<T> | ObjectField<T>;

/** What every field builder takes. */
interface Options<T> {
  readonly example: T;
  /** Said in the OpenAPI schema, for people. */
  readonly description?: string;
  /** The column, when not the field's name in snake_case. */
  readonly column?: string;
}

interface Scalar<T> {
  rule: FieldRule<T>;
  type: ColumnType;
  schema: JsonSchema;
  refused: readonly Refused[];
  components?: Readonly<Record<string, JsonSchema>>;
  named?: Readonly<Record<string, number>>;
}

function scalar<T>(kind: Scalar<T>, options: Options<T>, required: boolean, fallback: T | undefined): ScalarField<T> {
  const schema = options.description === undefined ? kind.schema : { ...kind.schema, description: options.description };
  return {
    kind: 'scalar',
    rule: kind.rule,
    patchRule: kind.rule,
    required,
    default: fallback,
    example: options.example,
    schema,
    patchSchema: schema,
    components: kind.components ?? {},
    refused: kind.refused,
    column: options.column,
    type: kind.type,
    choices: kind.named === undefined ? undefined : Object.values(kind.named),
    named: kind.named,
  };
}

// C0 controls, DEL and C1 controls: what no text field takes (the rule also refuses lone surrogates).
const NO_CONTROLS = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';

/** A required text: trimmed, `min..max` code points after trimming, no control characters. */
export function textField(options: Options<string> & { min: number; max: number }): ScalarField<string> {
  const { min, max } = options;
  const words = `Leading and trailing white space is trimmed and the trimmed value stored; ${min}..${max} Unicode code points after trimming; ` +
    'no control characters (U+0000..U+001F, U+007F..U+009F) or lone surrogates.';
  const schema = { type: 'string', minLength: min, maxLength: max, pattern: NO_CONTROLS, description: words };
  const refused: Refused[] = [{ value: 42, code: 'type' }, { value: 'x'.repeat(max + 1), code: 'too_long' }, { value: 'a\u0007b', code: 'invalid_characters' }];
  if (min > 0) refused.push({ value: ' '.repeat(2), code: 'too_short' });
  return scalar({ rule: textRule({ min, max }), type: 'text', schema, refused }, { ...options, description: options.description ?? words }, true, undefined);
}

/** A required integer within `min..max`, inclusive: a JSON number with no fraction; strings are not coerced. */
export function integerField(options: Options<number> & { min: number; max: number }): ScalarField<number> {
  const { min, max } = options;
  const schema = { type: 'integer', minimum: min, maximum: max, description: 'A JSON number with no fraction; strings are not coerced.' };
  const refused = [{ value: String(min), code: 'type' }, { value: min + 0.5, code: 'not_integer' }, { value: min - 1, code: 'too_small' }, { value: max + 1, code: 'too_large' }];
  return scalar({ rule: integerRule({ min, max }), type: 'integer', schema, refused }, options, true, undefined);
}

/**
 * An integer enum (`{ active: 1, archived: 2 }`): integers on the wire and in storage, each named in
 * the schema `name` (`OrderStatus`). With `default`, a create may leave it out.
 */
export function choiceField<const E extends Readonly<Record<string, number>>>(
  options: Options<E[keyof E]> & { name: string; values: E; default?: E[keyof E] },
): ScalarField<E[keyof E]> {
  const values = Object.values(options.values) as E[keyof E][];
  const said = Object.entries(options.values).map(([label, value]) => `${value} = ${label}`).join(', ');
  const named = { type: 'integer', description: `${options.name}: ${said}.`, oneOf: Object.entries(options.values).map(([label, value]) => ({ const: value, title: label })) };
  const refused = [{ value: String(values[0]), code: 'type' }, { value: Math.max(...values) + 1, code: 'invalid_enum' }];
  const kind = { rule: enumRule(values), type: 'smallint' as const, schema: { $ref: `#/components/schemas/${options.name}` }, refused, components: { [options.name]: named }, named: options.values };
  const description = options.description ?? (options.default === undefined ? undefined : `Optional; ${options.default} when omitted. Always present in the representation.`);
  return scalar(kind, description === undefined ? options : { ...options, description }, options.default === undefined, options.default);
}

/** A required text from a fixed list (`values`, such as currency codes): anything else is `invalid_enum`, anything but a string `type`. */
export function codeField(options: Options<string> & { values: readonly string[] }): ScalarField<string> {
  const allowed = new Set(options.values);
  const rule: FieldRule<string> = (value, field, errors) => {
    if (typeof value === 'string' && allowed.has(value)) return value;
    errors.push(fieldError(field, typeof value === 'string' ? 'invalid_enum' : 'type', `${field} must be one of the codes listed (such as ${options.example})`));
    return options.example;
  };
  const schema = { type: 'string', enum: options.values };
  const refused = [{ value: 7, code: 'type' }, { value: 'XXX', code: 'invalid_enum' }, { value: options.example.toLowerCase(), code: 'invalid_enum' }];
  return scalar({ rule, type: 'text', schema, refused }, options, true, undefined);
}

type MemberValues<M extends Readonly<Record<string, ScalarField<unknown>>>> = { -readonly [K in keyof M]: M[K] extends ScalarField<infer V> ? V : never };

/** A required object of scalar members, each required in a create and stored in a column of its own; a merge patch may send some. */
export function objectField<const M extends Readonly<Record<string, ScalarField<unknown>>>>(options: { members: M; description?: string }): ObjectField<MemberValues<M>> {
  type V = MemberValues<M>;
  const specs = Object.fromEntries(Object.entries(options.members).map(([name, member]) => [name, { rule: member.rule, required: member.required }])) as unknown as Fields<V>;
  const { rule, patchRule } = objectRules(specs);
  const names = Object.keys(options.members);
  const properties = Object.fromEntries(Object.entries(options.members).map(([name, member]) => [name, member.schema]));
  const schema = { type: 'object', required: names, properties, additionalProperties: false, ...(options.description === undefined ? {} : { description: options.description }) };
  const example = Object.fromEntries(Object.entries(options.members).map(([name, member]) => [name, member.example])) as V;
  const refused: Refused[] = [{ value: 'x', code: 'type' }];
  for (const [name, member] of Object.entries(options.members)) for (const bad of member.refused) refused.push({ value: { ...example, [name]: bad.value }, code: bad.code, at: name });
  const components = Object.assign({}, ...Object.values(options.members).map((member) => member.components)) as Record<string, JsonSchema>;
  return {
    kind: 'object', rule, patchRule, required: true, default: undefined, example, schema,
    patchSchema: { type: 'object', properties, additionalProperties: false }, components, refused, members: options.members,
  };
}

import type { Resource } from '../../src/resources/resource.ts';
import { placesOf, type Place, textPlacesOf, valueAt, withValue } from '../support/resource-places.ts';
import { refusals, validBody, fieldsIn } from '../support/resources.ts';
import type { Random } from './seeded-random.ts';

// Bodies a hostile or broken client sends to a resource's create endpoint, shaped by its description
// (its fields, their members, the values they refuse). Each returns raw bytes: many of them are not
// valid UTF-8 or not valid JSON on purpose.
type Json = Record<string, unknown>;

const NUMBERS = [
  '-0', '-0.0', '0e0', '1e400', '-1e400', '1e-400', '2147483647', '2147483648', '-1', '1.5', '1.0', '1e2',
  '123456789012345678901234567890', '9007199254740993', '0.1e1', '-2147483649', '1E+2', '00', '01', '.5', '+1',
  'NaN', 'Infinity', '-Infinity', '0x10', 'true', 'null', '"12"', '[]', '{}',
];

// Texts, and a few values of other types, for a place that takes text; {table} is a table the server keeps.
const TEXTS = [
  '"\\ud800"', '"a\\udc00b"', '"\\udbff\\udfff"', '"\\ud83d\\ude00"', '"x\\u0000y"', '"\\u001f"', '"\\u007f"',
  '"\\u0085"', '"\\u2028\\u2029"', '"  padded  "', '" "', '""', '"\\t\\n"', '"\\u00a0"', '"\\ufeff"', '"\\uffff"',
  '"<script>alert(1)</script>"', '"\'; DROP TABLE {table};--"', '"%s%n%x"', '"${7*7}"', '"../../etc/passwd"',
  '"Robert\\"); DELETE FROM {table}; --"', '"\\\\"', '"🙂🙂🙂"', '"e\\u0301"', '"ﷺ"', 'null', '0', '[]', '{}', 'true',
];

const EVIL_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'hasOwnProperty', 'toString', 'valueOf', 'polluted'];

// Byte sequences that are not UTF-8: stray continuation, overlong, surrogates, truncated, beyond U+10FFFF.
const BAD_UTF8 = [[0xff], [0xfe], [0x80], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98]];

function text(value: string): Buffer {
  return Buffer.from(value, 'utf8');
}

function member(random: Random): string {
  const key = random.pick(EVIL_KEYS);
  const value = random.pick(['{"polluted":true}', '{"prototype":{"polluted":true}}', '1', '"x"', 'null', '[]']);
  return `"${key}":${value}`;
}

// A JSON text for `place`: mostly a valid value, else one a hostile client would try for its kind.
function scalarText(random: Random, resource: Resource, place: Place): string {
  if (random.chance(0.6)) return JSON.stringify(valueAt(validBody(resource, random.int(1_000_000)), place));
  if (place.spec.type === 'text') return random.pick(TEXTS).replaceAll('{table}', resource.plural);
  const choices = place.spec.choices;
  if (choices === undefined) {
    // Half the time a value at or just past its own bounds.
    const { minimum: min = 0, maximum: max = 0 } = place.spec.schema as { minimum?: number; maximum?: number };
    return random.chance(0.5) ? String(random.pick([min - 1, min, max, max + 1])) : random.pick(NUMBERS);
  }
  return random.pick([...choices.map(String), '0', String(Math.max(...choices) + 1), '1.0', '-0', `"${String(choices[0])}"`, 'null']);
}

function fieldText(random: Random, resource: Resource, field: string, places: readonly Place[]): string {
  const own = places.filter((place) => place.field === field);
  const refused = refusals(resource).filter((refusal) => refusal.field === field);
  if (refused.length > 0 && random.chance(0.15)) return JSON.stringify(random.pick(refused).value);
  const [only] = own;
  if (own.length === 1 && only !== undefined && only.member === undefined) return scalarText(random, resource, only);
  if (random.chance(0.15)) return random.pick([...TEXTS.slice(-5), ...NUMBERS.slice(0, 3)]);
  const members = own.filter(() => random.chance(0.9)).map((place) => `"${String(place.member)}":${scalarText(random, resource, place)}`);
  if (random.chance(0.1)) members.push(member(random));
  return `{${members.join(',')}}`;
}

function validish(random: Random, resource: Resource): string {
  const places = placesOf(resource);
  const fields = Object.keys(fieldsIn(resource));
  const parts = fields.filter(() => random.chance(0.85)).map((field) => `"${field}":${fieldText(random, resource, field, places)}`);
  if (random.chance(0.2)) parts.push(member(random));
  const [first] = fields;
  if (first !== undefined && random.chance(0.1)) parts.push(`"${first}":${fieldText(random, resource, first, places)}`); // duplicate: the last one counts
  return `{${parts.join(',')}}`;
}

// The member a string is sent in (a text field's, else the first field's), and a valid body's members after it.
function shape(resource: Resource): { at: string; rest: string } {
  const body = validBody(resource);
  const at = textPlacesOf(resource)[0]?.field ?? Object.keys(fieldsIn(resource))[0] ?? 'x';
  const rest = Object.entries(body).filter(([name]) => name !== at).map(([name, value]) => `,"${name}":${JSON.stringify(value)}`).join('');
  return { at, rest };
}

function nested(random: Random, resource: Resource): string {
  const depth = random.pick([10, 100, 1_000, 5_000, 7_000]);
  const [open, close] = random.pick([['[', ']'], ['{"a":', '}']] as const);
  const inner = `${open.repeat(depth)}1${close.repeat(depth)}`;
  const { at, rest } = shape(resource);
  return random.chance(0.5) ? inner : `{"${at}":${inner}${rest}}`;
}

function malformed(random: Random, resource: Resource): string {
  const valid = validish(random, resource);
  const { at, rest } = shape(resource);
  const whole = JSON.stringify(validBody(resource));
  return random.pick([
    valid.slice(0, random.int(valid.length)),
    `${valid},`,
    `${valid}${valid}`,
    valid.replaceAll('"', "'"),
    `{"${at}":"a",}`,
    `{${at}:"a"}`,
    `{"${at}":"a" ${rest.slice(1) || '"x":1'}}`,
    `{"${at}":"a"${rest} /* comment */}`,
    `{"${at}":"unterminated`,
    '"\\uZZZZ"',
    `{"${at}":"\\x41"}`,
    '\u0000',
    '',
    ' ',
    `\ufeff${whole}`,
    'null',
    `[${whole}]`,
    '"just a string"',
    '12',
    '{"a":1e999999999}',
  ]);
}

function invalidUtf8(random: Random, resource: Resource): Buffer {
  const bytes = Buffer.from(random.pick(BAD_UTF8));
  const { at, rest } = shape(resource);
  const whole = JSON.stringify(validBody(resource));
  const [before, after] = random.pick([[`{"${at}":"`, `"${rest}}`], ['{"', '":1}'], ['', whole], [whole, '']] as const);
  return Buffer.concat([text(before), bytes, text(after)]);
}

function rawControl(random: Random, resource: Resource): Buffer {
  // A raw (unescaped) control byte inside a JSON string is invalid JSON.
  const { at, rest } = shape(resource);
  return Buffer.concat([text(`{"${at}":"a`), Buffer.from([random.int(32)]), text(`b"${rest}}`)]);
}

// A valid body but for one text around its longest (or a number far too large where no place takes text).
function longText(random: Random, resource: Resource): string {
  const place = textPlacesOf(resource)[0];
  if (place === undefined) return `{"${Object.keys(fieldsIn(resource))[0] ?? 'x'}":${'9'.repeat(5_000)}}`;
  const max = Number(place.spec.schema['maxLength'] ?? 200);
  return JSON.stringify(withValue(validBody(resource), place, 'x'.repeat(random.pick([max - 1, max, max + 1, 5_000]))) as Json);
}

/** One hostile body for a create of `resource`, as bytes. */
export function hostileBody(random: Random, resource: Resource): Buffer {
  switch (random.int(7)) {
    case 0:
      return text(nested(random, resource));
    case 1:
      return text(malformed(random, resource));
    case 2:
      return invalidUtf8(random, resource);
    case 3:
      return rawControl(random, resource);
    case 4:
      return text(`{${member(random)},${member(random)}}`);
    case 5:
      return text(longText(random, resource));
    default:
      return text(validish(random, resource));
  }
}

import type { Random } from './seeded-random.ts';

// Bodies a hostile or broken client sends to a create endpoint. Each returns raw bytes:
// many of them are not valid UTF-8 or not valid JSON on purpose.

const NUMBERS = [
  '-0', '-0.0', '0e0', '1e400', '-1e400', '1e-400', '2147483647', '2147483648', '-1', '1.5', '1.0', '1e2',
  '123456789012345678901234567890', '9007199254740993', '0.1e1', '-2147483649', '1E+2', '00', '01', '.5', '+1',
  'NaN', 'Infinity', '-Infinity', '0x10', 'true', 'null', '"12"', '[]', '{}',
];

const NAMES = [
  '"\\ud800"', '"a\\udc00b"', '"\\udbff\\udfff"', '"\\ud83d\\ude00"', '"x\\u0000y"', '"\\u001f"', '"\\u007f"',
  '"\\u0085"', '"\\u2028\\u2029"', '"  padded  "', '" "', '""', '"\\t\\n"', '"\\u00a0"', '"\\ufeff"', '"\\uffff"',
  '"<script>alert(1)</script>"', '"\'; DROP TABLE products;--"', '"%s%n%x"', '"${7*7}"', '"../../etc/passwd"',
  '"Robert\\"); DELETE FROM products; --"', '"\\\\"', '"🙂🙂🙂"', '"e\\u0301"', '"ﷺ"', 'null', '0', '[]', '{}', 'true',
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

function validish(random: Random): string {
  const parts = [`"name":${random.chance(0.7) ? `"fuzz ${random.int(1e6)}"` : random.pick(NAMES)}`];
  if (random.chance(0.9)) parts.push(`"priceInCents":${random.chance(0.6) ? String(random.int(100_000)) : random.pick(NUMBERS)}`);
  if (random.chance(0.3)) parts.push(`"status":${random.pick(['1', '2', '0', '3', '1.0', '-0', '"1"', 'null'])}`);
  if (random.chance(0.2)) parts.push(member(random));
  if (random.chance(0.1)) parts.push(`"name":${random.pick(NAMES)}`); // duplicate: the last one counts
  return `{${parts.join(',')}}`;
}

function nested(random: Random): string {
  const depth = random.pick([10, 100, 1_000, 5_000, 7_000]);
  const [open, close] = random.pick([['[', ']'], ['{"a":', '}']] as const);
  const inner = `${open.repeat(depth)}1${close.repeat(depth)}`;
  return random.chance(0.5) ? inner : `{"name":${inner},"priceInCents":1}`;
}

function malformed(random: Random): string {
  const valid = validish(random);
  return random.pick([
    valid.slice(0, random.int(valid.length)),
    `${valid},`,
    `${valid}${valid}`,
    valid.replaceAll('"', "'"),
    `{"name":"a",}`,
    `{name:"a"}`,
    `{"name":"a" "priceInCents":1}`,
    '{"name":"a","priceInCents":1 /* comment */}',
    '{"name":"unterminated',
    '"\\uZZZZ"',
    '{"name":"\\x41"}',
    '\u0000',
    '',
    ' ',
    '\ufeff{"name":"bom","priceInCents":1}',
    'null',
    '[{"name":"array","priceInCents":1}]',
    '"just a string"',
    '12',
    '{"a":1e999999999}',
  ]);
}

function invalidUtf8(random: Random): Buffer {
  const bytes = Buffer.from(random.pick(BAD_UTF8));
  const [before, after] = random.pick([
    ['{"name":"', '","priceInCents":1}'],
    ['{"', '":1}'],
    ['', '{"name":"a","priceInCents":1}'],
    ['{"name":"a","priceInCents":1}', ''],
  ] as const);
  return Buffer.concat([text(before), bytes, text(after)]);
}

function rawControl(random: Random): Buffer {
  // A raw (unescaped) control byte inside a JSON string is invalid JSON.
  return Buffer.concat([text('{"name":"a'), Buffer.from([random.int(32)]), text('b","priceInCents":1}')]);
}

/** One hostile body, as bytes. */
export function hostileBody(random: Random): Buffer {
  switch (random.int(7)) {
    case 0:
      return text(nested(random));
    case 1:
      return text(malformed(random));
    case 2:
      return invalidUtf8(random);
    case 3:
      return rawControl(random);
    case 4:
      return text(`{${member(random)},${member(random)}}`);
    case 5:
      return text(`{"name":"${'x'.repeat(random.pick([199, 200, 201, 5_000]))}","priceInCents":1}`);
    default:
      return text(validish(random));
  }
}

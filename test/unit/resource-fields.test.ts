import assert from 'node:assert/strict';
import { test } from 'node:test';
import { choiceField, codeField, type Field, integerField, objectField, textField } from '../../src/resources/fields.ts';
import type { FieldError } from '../../src/shared/validation.ts';

// The field builders of docs/extending.md, each against the bounds, default and words it was given:
// every other test reads a field's bounds back from the field itself (its schema, its refused values),
// so a builder that got one of them wrong everywhere at once would pass them all.

type Outcome = { value: unknown; errors: string[] };

// What `field`'s rule (or its merge patch rule) makes of `value` at the body member `name`.
function run(field: Field<unknown>, value: unknown, patch = false, name = 'f'): Outcome {
  const errors: FieldError[] = [];
  const result = (patch ? field.patchRule : field.rule)(value, name, errors);
  return { value: result, errors: errors.map((error) => `${'pointer' in error ? error.pointer : ''} ${error.code}`) };
}

const accepted = (field: Field<unknown>, value: unknown): unknown => {
  const outcome = run(field, value);
  assert.deepEqual(outcome.errors, [], JSON.stringify(value));
  return outcome.value;
};

test('integerField: exactly min..max, in the rule, the schema and the refused values; its description when given', () => {
  const field = integerField({ min: 3, max: 9, example: 4, description: 'Said for people.' });
  assert.deepEqual([accepted(field, 3), accepted(field, 9)], [3, 9]);
  assert.deepEqual([run(field, 2).errors, run(field, 10).errors, run(field, 3.5).errors, run(field, '3').errors], [['/f too_small'], ['/f too_large'], ['/f not_integer'], ['/f type']]);
  assert.deepEqual(field.schema, { type: 'integer', minimum: 3, maximum: 9, description: 'Said for people.' });
  assert.deepEqual(field.refused.map((bad) => `${JSON.stringify(bad.value)} ${bad.code}`), ['"3" type', '3.5 not_integer', '2 too_small', '10 too_large']);
  assert.deepEqual([field.required, field.default, field.type, field.choices], [true, undefined, 'integer', undefined]);
  assert.match(String(integerField({ min: 0, max: 1, example: 0 }).schema['description']), /no fraction/, 'its own words without one');
});

test('textField: trimmed, then min..max code points, no control characters; the schema says the same', () => {
  const field = textField({ min: 2, max: 5, example: 'ab' });
  assert.equal(accepted(field, ' \t abcde \n'), 'abcde', 'stored trimmed');
  assert.equal(accepted(field, '\u{1F600}\u{1F600}'), '\u{1F600}\u{1F600}', 'code points, not UTF-16 units');
  assert.deepEqual([run(field, ' a ').errors, run(field, 'abcdef').errors, run(field, 'a\u0007b').errors, run(field, 7).errors], [['/f too_short'], ['/f too_long'], ['/f invalid_characters'], ['/f type']]);
  assert.deepEqual([field.schema['type'], field.schema['minLength'], field.schema['maxLength']], ['string', 2, 5]);
  assert.match(String(field.schema['description']), /trimmed.*2\.\.5/);
  assert.deepEqual(field.refused.map((bad) => bad.code), ['type', 'too_long', 'invalid_characters', 'too_short']);
  assert.equal(textField({ min: 0, max: 3, example: '', description: 'Own words.' }).schema['description'], 'Own words.');
});

test('choiceField: its values, its default (a create may leave it out), its named schema; its description when given', () => {
  const shade = choiceField({ name: 'Shade', values: { light: 1, dark: 2, black: 3 }, default: 2, example: 1 });
  assert.deepEqual([accepted(shade, 1), accepted(shade, 3)], [1, 3]);
  assert.deepEqual([run(shade, 4).errors, run(shade, '1').errors], [['/f invalid_enum'], ['/f type']]);
  assert.deepEqual([shade.required, shade.default, shade.choices, shade.named], [false, 2, [1, 2, 3], { light: 1, dark: 2, black: 3 }]);
  assert.deepEqual(shade.schema, { $ref: '#/components/schemas/Shade', description: 'Optional; 2 when omitted. Always present in the representation.' });
  assert.deepEqual(shade.components['Shade'], {
    type: 'integer',
    description: 'Shade: 1 = light, 2 = dark, 3 = black.',
    oneOf: [{ const: 1, title: 'light' }, { const: 2, title: 'dark' }, { const: 3, title: 'black' }],
  });
  const required = choiceField({ name: 'Mood', values: { calm: 5, loud: 6 }, example: 5, description: 'Own words.' });
  assert.deepEqual([required.required, required.default, required.schema['description']], [true, undefined, 'Own words.']);
});

test('codeField: one of its codes exactly; the schema lists them and says its description', () => {
  const field = codeField({ values: ['AAA', 'BBB'], example: 'AAA', description: 'A code.' });
  assert.equal(accepted(field, 'BBB'), 'BBB');
  assert.deepEqual([run(field, 'CCC').errors, run(field, 'aaa').errors, run(field, 1).errors], [['/f invalid_enum'], ['/f invalid_enum'], ['/f type']]);
  assert.deepEqual(field.schema, { type: 'string', enum: ['AAA', 'BBB'], description: 'A code.' });
});

test('objectField: its members\' rules and schemas, each error pointing inside it; a patch may send some members', () => {
  const size = objectField({
    members: { width: integerField({ min: 1, max: 10, example: 2 }), label: textField({ min: 1, max: 4, example: 'ab' }) },
    description: 'Two members.',
  });
  assert.deepEqual(accepted(size, { width: 10, label: ' abcd ' }), { width: 10, label: 'abcd' });
  assert.deepEqual(run(size, { width: 11, label: '', extra: 1 }, false, 'size').errors, ['/size/width too_large', '/size/label too_short', '/size/extra unknown_field']);
  assert.deepEqual(run(size, { width: 1 }, false, 'size').errors, ['/size/label required']);
  assert.deepEqual(run(size, 'x', false, 'size').errors, ['/size type']);
  assert.deepEqual(run(size, { label: 'ok' }, true, 'size'), { value: { label: 'ok' }, errors: [] });
  assert.deepEqual(run(size, { width: null }, true, 'size').errors, ['/size/width type']);
  const { width, label } = size.members as Record<string, Field<unknown>>;
  assert.deepEqual(size.schema, { type: 'object', required: ['width', 'label'], properties: { width: width?.schema, label: label?.schema }, additionalProperties: false, description: 'Two members.' });
  assert.deepEqual(size.example, { width: 2, label: 'ab' });
  assert.ok(size.refused.some((bad) => bad.at === 'width' && bad.code === 'too_large' && (bad.value as { width: number }).width === 11));
});

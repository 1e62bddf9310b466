import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FieldError } from '../../src/http/errors.ts';
import { validateNewApiKey } from '../../src/keys/validate.ts';
import { validatorsOf } from '../../src/resources/validate.ts';
import type { Validated } from '../../src/shared/validation.ts';
import { RESOURCES, validBody, NEWEST_VERSION } from '../support/resources.ts';

type Validate = (name: unknown) => Validated<{ name?: unknown }>;

// The name rule of docs/api.md is the same for every resource that has a `name` field (and API keys), so every case runs on each.
const VALIDATORS: Record<string, Validate> = {
  ...Object.fromEntries(
    RESOURCES.filter((resource) => Object.hasOwn(resource.fields, 'name')).map((resource) => {
      const { validateNew } = validatorsOf(resource);
      const { name: _name, ...others } = validBody(resource, 0, NEWEST_VERSION);
      return [resource.singular, (name: unknown) => validateNew(name === undefined ? others : { ...others, name })];
    }),
  ),
  'API key': (name: unknown) => validateNewApiKey(name === undefined ? { scopes: ['read'] } : { name, scopes: ['read'] }, new Date(), { served: ['2026-11-21'], defaultVersion: '2026-11-21', pinnable: true }),
};

function nameErrors(validate: Validate, name: unknown): FieldError[] {
  const result = validate(name);
  return result.ok ? [] : result.errors;
}

function acceptedName(validate: Validate, name: unknown): unknown {
  const result = validate(name);
  assert.ok(result.ok, `expected ${JSON.stringify(name)} to be accepted: ${JSON.stringify(result)}`);
  return result.value.name;
}

function codes(errors: FieldError[]): string[] {
  return errors.map((error) => `${'pointer' in error ? error.pointer : ''} ${error.code}`);
}

const EMOJI = '\u{1F600}'; // one code point, two UTF-16 units

for (const [resource, validate] of Object.entries(VALIDATORS)) {
  test(`${resource} name: 1 and 200 code points are accepted`, () => {
    assert.equal(acceptedName(validate, 'a'), 'a');
    assert.equal(acceptedName(validate, 'a'.repeat(200)), 'a'.repeat(200));
  });

  test(`${resource} name: astral characters count once`, () => {
    assert.equal(acceptedName(validate, EMOJI), EMOJI);
    assert.equal(acceptedName(validate, EMOJI.repeat(200)), EMOJI.repeat(200));
    assert.deepEqual(codes(nameErrors(validate, EMOJI.repeat(201))), ['/name too_long']);
  });

  test(`${resource} name: 201 code points are too_long`, () => {
    const errors = nameErrors(validate, 'a'.repeat(201));
    assert.deepEqual(errors, [{ pointer: '/name', code: 'too_long', detail: 'name must be at most 200 characters' }]);
  });

  test(`${resource} name: empty and whitespace-only are too_short`, () => {
    for (const name of ['', ' ', '   \t\n ', '\u00a0\u3000']) {
      assert.deepEqual(codes(nameErrors(validate, name)), ['/name too_short'], JSON.stringify(name));
    }
  });

  test(`${resource} name: surrounding white space is trimmed and the trimmed value kept`, () => {
    assert.equal(acceptedName(validate, '  Desk lamp \t\n'), 'Desk lamp');
    assert.equal(acceptedName(validate, 'a  b'), 'a  b');
    // Length is measured after trimming.
    assert.equal(acceptedName(validate, ` ${'a'.repeat(200)} `), 'a'.repeat(200));
  });

  test(`${resource} name: control characters are invalid_characters, at both ends of each range`, () => {
    for (const control of ['\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f']) {
      const name = `a${control}b`;
      assert.deepEqual(codes(nameErrors(validate, name)), ['/name invalid_characters'], JSON.stringify(name));
    }
  });

  test(`${resource} name: the characters just outside the control ranges are fine`, () => {
    for (const name of ['a\u0020b', 'a\u007eb', 'a\u00a0b', 'a\u00a1b']) assert.equal(acceptedName(validate, name), name);
  });

  test(`${resource} name: a lone surrogate cannot be stored as UTF-8 and is invalid_characters`, () => {
    for (const name of ['a\ud800b', 'a\udfff', '\ud83d']) {
      assert.deepEqual(codes(nameErrors(validate, name)), ['/name invalid_characters'], JSON.stringify(name));
    }
  });

  test(`${resource} name: a non-string or null is type; a missing name is required`, () => {
    for (const name of [null, 1, true, [], {}, ['a']]) {
      assert.deepEqual(nameErrors(validate, name), [{ pointer: '/name', code: 'type', detail: 'name must be a string' }]);
    }
    assert.deepEqual(nameErrors(validate, undefined), [{ pointer: '/name', code: 'required', detail: 'name is required' }]);
  });
}

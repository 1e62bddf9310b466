import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workspaces } from '../../src/workspaces/resource.ts';
import { validatorsOf } from '../../src/resources/validate.ts';
import { ALL_RESOURCES } from '../support/resources.ts';

const { validateNew: validateNewWorkspace } = validatorsOf(workspaces);

// The name rules themselves are covered for both resources in validate-name.test.ts.
const validate = (json: string): ReturnType<typeof validateNewWorkspace> => validateNewWorkspace(JSON.parse(json));

test('a workspace with a name is accepted and trimmed', () => {
  assert.deepEqual(validate('{"name":" Acme "}'), { ok: true, value: { name: 'Acme' } });
});

test("other resources' members are unknown on a workspace, __proto__ and constructor included", () => {
  const others = [...new Set(ALL_RESOURCES.flatMap((resource) => Object.keys(resource.fields)))].filter((field) => !(field in workspaces.fields));
  assert.ok(others.length > 0);
  const members = others.map((field) => `"${field}":1`).join(',');
  const result = validate(`{"name":"Acme",${members},"__proto__":null,"constructor":{}}`);
  assert.deepEqual(result.ok ? [] : result.errors.map((e) => ('pointer' in e ? e.pointer : '') + ' ' + e.code), [
    ...others.map((field) => `/${field} unknown_field`),
    '/__proto__ unknown_field',
    '/constructor unknown_field',
  ]);
});

test('every error at once: a bad name and unknown members together', () => {
  const result = validate('{"Name":"Acme","name":7}');
  assert.deepEqual(result, {
    ok: false,
    errors: [
      { pointer: '/name', code: 'type', detail: 'name must be a string' },
      { pointer: '/Name', code: 'unknown_field', detail: 'Name is not a known field' },
    ],
  });
});

test('duplicate members: the last one counts', () => {
  assert.deepEqual(validate('{"name":"","name":"Second"}'), { ok: true, value: { name: 'Second' } });
});

test('valid JSON that is not an object is one type error at the root pointer', () => {
  for (const text of ['[]', '0', '"Acme"', 'null', 'false']) {
    assert.deepEqual(validate(text), { ok: false, errors: [{ pointer: '', code: 'type', detail: 'The request body must be a JSON object.' }] }, text);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Scope } from '../../src/callers/scopes.ts';
import { type KeyVersionRules, validateApiKeyPatch, validateNewApiKey } from '../../src/keys/validate.ts';
import { parseDateTime } from '../../src/shared/date-time.ts';
import type { FieldError } from '../../src/shared/validation.ts';

// The name rule is covered with the other resources' in validate-name.test.ts.
const NOW = new Date('2026-11-22T09:30:00.000Z');
const SERVED = ['2026-12-05', '2026-11-28'];
const PINNABLE = { served: SERVED, defaultVersion: '2026-11-28', pinnable: true };
const validate = (body: unknown, versions: KeyVersionRules = PINNABLE): ReturnType<typeof validateNewApiKey> => validateNewApiKey(body, NOW, versions);
const errorsOf = (body: unknown): string[] => {
  const result = validate(body);
  return result.ok ? [] : result.errors.map((error: FieldError) => `${'pointer' in error ? error.pointer : ''} ${error.code}`);
};

test('a key request is accepted with scopes lowest first, the name trimmed, and no expiry by default', () => {
  assert.deepEqual(validate({ name: ' ci ', scopes: ['admin', 'read'] }), { ok: true, value: { name: 'ci', scopes: [Scope.read, Scope.admin], expiresAt: null, apiVersion: '2026-11-28' } });
  assert.deepEqual(validate({ name: 'ci', scopes: ['write'], expiresAt: null }), { ok: true, value: { name: 'ci', scopes: [Scope.write], expiresAt: null, apiVersion: '2026-11-28' } });
});

test('expiresAt: an RFC 3339 time in the future, stored as UTC with milliseconds', () => {
  const at = (expiresAt: string): unknown => {
    const result = validate({ name: 'x', scopes: ['read'], expiresAt });
    return result.ok ? result.value.expiresAt : result.errors;
  };
  assert.equal(at('2026-11-22T09:30:00.001Z'), '2026-11-22T09:30:00.001Z');
  assert.equal(at('2027-01-31T12:00:00+02:00'), '2027-01-31T10:00:00.000Z');
  assert.equal(at('2027-01-31t12:00:00.123456z'), '2027-01-31T12:00:00.123Z');
  assert.equal(at('9999-12-31T23:59:59.999Z'), '9999-12-31T23:59:59.999Z');
});

test('every error at once, each with its code and pointer', () => {
  assert.deepEqual(errorsOf({}), ['/name required', '/scopes required']);
  assert.deepEqual(errorsOf({ name: 7, scopes: 'admin', expiresAt: 5, owner: 'me' }), ['/name type', '/scopes type', '/expiresAt type', '/owner unknown_field']);
  assert.deepEqual(errorsOf({ name: 'x', scopes: [] }), ['/scopes too_short']);
  assert.deepEqual(errorsOf({ name: 'x', scopes: ['read', 'root', 3, null, 'read', 'Admin', 'write', 'write'] }), [
    '/scopes/1 invalid_enum',
    '/scopes/2 type',
    '/scopes/3 type',
    '/scopes/4 duplicate',
    '/scopes/5 invalid_enum',
    '/scopes/7 duplicate',
  ]);
  assert.deepEqual(errorsOf([{ name: 'x', scopes: ['read'] }]), [' type']);
  assert.deepEqual(errorsOf({ name: 'x', scopes: ['read'], __proto__: null, constructor: 1 } as unknown), ['/constructor unknown_field']);
});

test('expiresAt that is not a date-time is a type error that says so; one not in the future is too_small', () => {
  for (const bad of ['tomorrow', '2027-01-31', '2027-01-31T12:00:00', '2027-01-31 12:00:00Z', '2027-02-30T00:00:00Z', '2027-01-31T24:00:00Z', '2027-01-31T12:00:60Z', '2027-01-31T12:00:00+24:00', '+02027-01-31T12:00:00Z', '']) {
    const result = validate({ name: 'x', scopes: ['read'], expiresAt: bad });
    assert.deepEqual(result.ok ? [] : result.errors, [{ pointer: '/expiresAt', code: 'type', detail: 'expiresAt must be null or an RFC 3339 date-time string such as 2027-01-31T12:00:00Z' }], bad);
  }
  for (const past of ['2026-11-22T09:30:00.000Z', '2026-11-22T10:29:59+01:00', '1970-01-01T00:00:00Z']) {
    assert.deepEqual(errorsOf({ name: 'x', scopes: ['read'], expiresAt: past }), ['/expiresAt too_small'], past);
  }
  assert.deepEqual(errorsOf({ name: 'x', scopes: ['read'], expiresAt: '9999-12-31T23:59:59-01:00' }), ['/expiresAt too_large']);
});

test('parseDateTime reads RFC 3339 instants and refuses impossible ones', () => {
  assert.equal(parseDateTime('2024-02-29T23:59:59.999Z'), Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  assert.equal(parseDateTime('2024-03-01T00:30:00-00:45'), Date.UTC(2024, 2, 1, 1, 15));
  assert.equal(parseDateTime('0050-06-01T00:00:00Z'), new Date('0050-06-01T00:00:00Z').getTime(), 'two-digit years are not 19xx');
  for (const bad of ['2023-02-29T00:00:00Z', '2100-02-29T00:00:00Z', '2027-04-31T00:00:00Z', '2027-00-10T00:00:00Z', '2027-01-00T00:00:00Z', '2027-01-01T00:60:00Z']) {
    assert.equal(parseDateTime(bad), null, bad);
  }
  assert.equal(parseDateTime('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
});

test('apiVersion: a version served, where the request\'s version has the member; else the default, and the member unknown', () => {
  const pinned = (apiVersion: unknown, versions: KeyVersionRules = PINNABLE): unknown => {
    const result = validate({ name: 'x', scopes: ['read'], apiVersion }, versions);
    return result.ok ? result.value.apiVersion : result.errors.map((error) => `${'pointer' in error ? error.pointer : ''} ${error.code}`);
  };
  assert.equal(pinned('2026-12-05'), '2026-12-05');
  assert.equal(pinned('2026-11-28'), '2026-11-28');
  for (const unserved of ['2026-11-21', '2099-01-01', '2026-12-5', ' 2026-12-05', '']) assert.deepEqual(pinned(unserved), ['/apiVersion invalid_enum'], unserved);
  for (const notText of [20261205, null, ['2026-12-05'], { version: '2026-12-05' }, true]) assert.deepEqual(pinned(notText), ['/apiVersion type'], JSON.stringify(notText));
  const result = validate({ name: 'x', scopes: ['read'], apiVersion: 'v1' });
  assert.deepEqual(result.ok ? [] : result.errors, [{ pointer: '/apiVersion', code: 'invalid_enum', detail: 'apiVersion must be a version served: one of 2026-12-05, 2026-11-28' }]);
  const older = { served: SERVED, defaultVersion: '2026-11-21', pinnable: false };
  assert.deepEqual(pinned('2026-12-05', older), ['/apiVersion unknown_field'], 'a version without the member knows no such field');
  assert.equal((validate({ name: 'x', scopes: ['read'] }, older) as { value: { apiVersion: string } }).value.apiVersion, '2026-11-21');
});

test('a key\'s merge patch: name and apiVersion, each optional, every error at once, nothing else', () => {
  const patch = (body: unknown): unknown => {
    const result = validateApiKeyPatch(body, SERVED);
    return result.ok ? result.value : result.errors.map((error) => `${'pointer' in error ? error.pointer : ''} ${error.code}`);
  };
  assert.deepEqual(patch({}), {});
  assert.deepEqual(patch({ name: ' ops ', apiVersion: '2026-12-05' }), { name: 'ops', apiVersion: '2026-12-05' });
  assert.deepEqual(patch({ apiVersion: '2026-11-28' }), { apiVersion: '2026-11-28' });
  assert.deepEqual(patch({ name: null, apiVersion: null }), ['/name type', '/apiVersion type'], 'no member can be removed');
  assert.deepEqual(patch({ name: '', apiVersion: '2026-11-21', scopes: ['admin'], expiresAt: null, revokedAt: null }), [
    '/name too_short', '/apiVersion invalid_enum', '/scopes unknown_field', '/expiresAt unknown_field', '/revokedAt unknown_field',
  ]);
  assert.deepEqual(patch({ name: 'x'.repeat(201), apiVersion: 7 }), ['/name too_long', '/apiVersion type']);
  assert.deepEqual(patch([]), [' type']);
  assert.deepEqual(patch(null), [' type']);
});

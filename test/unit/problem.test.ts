import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import { test } from 'node:test';
import { ERRORS, HttpError, reasonPhrase } from '../../src/http/errors.ts';
import { problemFor } from '../../src/http/problem.ts';

test('titles are the RFC 9110 reason phrases, not the older names node:http carries', () => {
  assert.equal(reasonPhrase(413), 'Content Too Large');
  assert.equal(reasonPhrase(422), 'Unprocessable Content');
  assert.notEqual(STATUS_CODES[413], 'Content Too Large', 'if node:http catches up, this table can shrink');
  const expected: Record<number, string> = {
    400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
    415: 'Unsupported Media Type', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
  };
  for (const [status, title] of Object.entries(expected)) assert.equal(reasonPhrase(Number(status)), title);
});

test('the catalogue has every code of docs/api.md, Errors with its status', () => {
  const contract: Record<string, number> = {
    invalid_json: 400, invalid_query: 400, invalid_header: 400, unauthorized: 401, not_found: 404,
    method_not_allowed: 405, idempotency_key_in_use: 409, payload_too_large: 413, unsupported_media_type: 415,
    validation_failed: 422, idempotency_key_reused: 422, rate_limited: 429, internal_error: 500, unavailable: 503,
  };
  const catalogue: Record<string, { status: number }> = ERRORS;
  for (const [code, status] of Object.entries(contract)) assert.equal(catalogue[code]?.status, status, code);
});

test('a client error becomes an RFC 9457 document with its code, detail and errors', () => {
  const errors = [{ pointer: '/name', code: 'required', detail: 'name is required' }];
  const error = new HttpError('validation_failed', { detail: 'The request body has 1 invalid field.', errors });
  assert.deepEqual(problemFor(error, '/api/products', 'req-1'), {
    type: 'about:blank',
    title: 'Unprocessable Content',
    status: 422,
    code: 'validation_failed',
    detail: 'The request body has 1 invalid field.',
    instance: '/api/products',
    requestId: 'req-1',
    errors,
  });
});

test('without errors the member is absent, and the catalogue detail is the default', () => {
  const problem = problemFor(new HttpError('payload_too_large'), '/api/products', 'r');
  assert.deepEqual(Object.keys(problem), ['type', 'title', 'status', 'code', 'detail', 'instance', 'requestId']);
  assert.equal(problem.title, 'Content Too Large');
  assert.equal(problem.detail, ERRORS.payload_too_large.detail);
});

test('anything unexpected is a bare 500 that says nothing about its cause', () => {
  const secret = new Error('SQLITE_ERROR near "SELEC": syntax error in /srv/app/data/app.db');
  for (const thrown of [secret, 'a string', null, { status: 404, code: 'not_found' }]) {
    const problem = problemFor(thrown, '/api/products', 'r');
    assert.deepEqual(problem, {
      type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'internal_error',
      detail: 'An unexpected error occurred.', instance: '/api/products', requestId: 'r',
    });
  }
});

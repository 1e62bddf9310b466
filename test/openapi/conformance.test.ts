import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERRORS } from '../../src/http/errors.ts';
import { callerTests, keysFetchedOnceTest, outsideOperationTests, tokenDirectionsTest } from './conformance-callers.ts';
import { eventFeedTests } from './conformance-events.ts';
import { keyClientErrorTests, keyLifecycleTests, keyPatchTests } from './conformance-keys.ts';
import { changeAndDeleteTests, itemClientErrorTests, readAndCreateTests, resourceRuleTests } from './conformance-resources.ts';
import { type ConformanceMode, ConformanceRun, responseOf } from './conformance-run.ts';
import { versionTests } from './conformance-versions.ts';
import { webhookTests } from './conformance-webhooks.ts';
import { halfSentRequest } from '../support/raw-http.ts';
import { DEFAULT_VERSION, NEWEST_VERSION, validBody } from '../support/resources.ts';
import type { VersionView } from '../../src/versions/api-versions.ts';

// Every operation and every client error of the contract, produced by a real server in each mode the
// document describes (SVC_AUTH off, off with SVC_API_TOKEN, keys, and jwt trusting a real OpenID
// Connect provider) and checked (status, media type, body and documented headers) against the
// document that server serves. The server serves every resource, the service's and the throwaway one
// of test/support/resources.ts, so a resource added is checked without being named. The PostgreSQL pass runs it too.
type Json = Record<string, unknown>;

// Met in server-states.test.ts (429, 500, 503), or (408) the same answer as 400 from node:http's parser.
const SERVER_SIDE = new Set(['rate_limited', 'internal_error', 'unavailable', 'request_timeout']);

// The statuses and problem codes an operation documents that a request alone can bring about.
function requestMade(operation: { responses: Json }): { statuses: string[]; codes: string[] } {
  const statuses: string[] = [];
  const codes: string[] = [];
  for (const [status, response] of Object.entries(operation.responses)) {
    const examples = (((response as Json)['content'] as Record<string, Json> | undefined)?.['application/problem+json']?.['examples'] ?? {}) as Json;
    const own = Object.keys(examples).filter((code) => !SERVER_SIDE.has(code));
    if (Object.keys(examples).length === 0 || own.length > 0) statuses.push(status);
    codes.push(...own);
  }
  return { statuses, codes };
}

// Sends a keyed create whose body is only half written, so its key stays claimed until `finish`.
function halfSentCreate(run: ConformanceRun, path: string, key: string, body: string): ReturnType<typeof halfSentRequest> {
  const auth = Object.entries(run.auth('POST')).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${auth}Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\nConnection: close`;
  return halfSentRequest(run.url, head, body);
}

function inFlightTests(run: ConformanceRun): void {
  for (const resource of run.resources) {
    const { path } = resource;
    const body = validBody(resource, 0, run.version);
    test(`${path}: 409 idempotency_key_in_use conforms while a same-key request is still arriving`, async () => {
      let conflict = false;
      // The server shares this process, so either request may be dispatched first: whichever comes
      // second while the other is unfinished gets 409. Bounded retries in case they did not overlap.
      for (let round = 0; round < 5 && !conflict; round++) {
        const first = await halfSentCreate(run, path, `in-flight-${round}`, JSON.stringify(body));
        const second = await run.checker.check('POST', path, await run.post(path, body, { 'idempotency-key': `in-flight-${round}` }));
        const firstChecked = await run.checker.check('POST', path, responseOf(await first.finish()));
        const statuses = [firstChecked.status, second.status].sort();
        conflict = statuses.includes(409);
        assert.deepEqual(statuses, conflict ? [201, 409] : [201, 201]);
      }
      assert.ok(conflict, 'the two requests never overlapped');
    });
  }
}

function everythingMetTest(run: ConformanceRun): void {
  test('every operation, every status and every client error code it documents was met and conformed; every field code too', () => {
    const paths = run.document['paths'] as Record<string, Record<string, { responses: Json }>>;
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item).filter(([key]) => key !== 'parameters')) {
        const { statuses, codes } = requestMade(operation);
        const at = `${method.toUpperCase()} ${path}`;
        for (const status of statuses) assert.ok(run.checker.seen.has(`${at} ${status}`), `${run.mode}: ${at} ${status} was met`);
        for (const code of codes) assert.ok(run.checker.seenOperationCodes.has(`${at} ${code}`), `${run.mode}: ${at} ${code} was met`);
      }
    }
    const callers: readonly string[] = { off: [], token: ['unauthorized'], keys: ['unauthorized', 'forbidden'], jwt: ['unauthorized', 'forbidden'] }[run.mode];
    const schemas = (run.document['components'] as Json)['schemas'] as Record<string, { properties: Record<string, { enum: string[] }> }>;
    // The catalogue's codes and the resources' own (a rule's refusal), as the document lists them.
    const codes = schemas['Problem']?.properties['code']?.enum ?? [];
    assert.ok(Object.keys(ERRORS).every((code) => codes.includes(code)), 'the document lists every code of the catalogue');
    const expected = codes.filter((code) => !SERVER_SIDE.has(code) && (!['unauthorized', 'forbidden'].includes(code) || callers.includes(code)));
    assert.deepEqual([...run.checker.seenCodes].sort(), expected.sort());
    assert.deepEqual([...run.fieldCodes].sort(), [...(schemas['FieldError']?.properties['code']?.enum ?? [])].sort());
    assert.deepEqual([...run.parameterCodes].sort(), [...(schemas['ParameterError']?.properties['code']?.enum ?? [])].sort());
  });
}

const TITLES: Readonly<Record<ConformanceMode, string>> = {
  off: 'SVC_AUTH off',
  token: 'SVC_AUTH off, SVC_API_TOKEN set',
  keys: 'SVC_AUTH keys',
  jwt: 'SVC_AUTH jwt, tokens of a real OpenID Connect provider',
};

// Every mode in the first API version (the default), and the newest version in mode keys, the one
// that serves every operation: each server's answers checked against the document of its version.
const RUNS: readonly (readonly [ConformanceMode, VersionView])[] = [...(['off', 'token', 'keys', 'jwt'] as const).map((mode) => [mode, DEFAULT_VERSION] as const), ['keys', NEWEST_VERSION]];

for (const [mode, version] of RUNS) {
  describe(version === DEFAULT_VERSION ? TITLES[mode] : `${TITLES[mode]}, in API version ${version.id}`, () => {
    const run = new ConformanceRun(mode, version);
    before(() => run.start());
    after(() => run.stop());

    test('readiness, the document itself and its page conform, with HEAD', async () => {
      await run.expectStatus('GET', '/api/ping', fetch(`${run.url}/api/ping`), 200);
      await run.expectStatus('HEAD', '/api/ping', fetch(`${run.url}/api/ping`, { method: 'HEAD' }), 200);
      await run.expectStatus('GET', '/api/openapi.json', fetch(`${run.url}/api/openapi.json`), 200);
      await run.expectStatus('GET', '/api/docs', fetch(`${run.url}/api/docs`), 200);
      await run.expectStatus('HEAD', '/api/docs', fetch(`${run.url}/api/docs`, { method: 'HEAD' }), 200);
    });
    readAndCreateTests(run);
    changeAndDeleteTests(run);
    itemClientErrorTests(run);
    resourceRuleTests(run);
    inFlightTests(run);
    if (mode === 'keys') {
      keyLifecycleTests(run);
      keyPatchTests(run);
      keyClientErrorTests(run);
    }
    webhookTests(run);
    versionTests(run);
    if (mode === 'jwt') tokenDirectionsTest(run);
    eventFeedTests(run);
    callerTests(run);
    outsideOperationTests(run);
    everythingMetTest(run);
    if (mode === 'jwt') keysFetchedOnceTest(run);
  });
}

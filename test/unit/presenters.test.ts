import assert from 'node:assert/strict';
import { test } from 'node:test';
import { presenterIn, presenterOf } from '../../src/resources/presenter.ts';
import { presentReadiness } from '../../src/readiness/presenter.ts';
import { ALL_RESOURCES, ALL_VERSIONS, representationMembers, validBody, NEWEST_VERSION } from '../support/resources.ts';

const createdAt = '2026-11-22T09:30:00.000Z';
const updatedAt = '2026-11-23T10:00:00.000Z';

test('every resource is presented with exactly its documented members, in order: id, its fields, the times', () => {
  for (const resource of ALL_RESOURCES) {
    // Extra properties on the stored object (as a row might carry) never reach the wire.
    // The version is the ETag's business, never a member of the body.
    const fields = validBody(resource, 3, NEWEST_VERSION);
    const stored = { id: 17, ...fields, createdAt, updatedAt, version: 4, created_at: createdAt, secret: 'x' };
    const body = presenterOf(resource)(stored);
    assert.deepEqual(Object.keys(body), representationMembers(resource, NEWEST_VERSION), resource.plural);
    assert.equal(JSON.stringify(body), JSON.stringify({ id: 17, ...fields, createdAt, updatedAt }), resource.plural);
  }
});

test('readiness is presented with exactly status and the two checks', () => {
  const readiness = { status: 2 as const, checks: { database: 1 as const, schema: 2 as const, extra: 1 } };
  assert.equal(JSON.stringify(presentReadiness(readiness)), '{"status":2,"checks":{"database":1,"schema":2}}');
});

test('in every version, a resource shows exactly the members of its fields there, each read from its column', () => {
  for (const resource of ALL_RESOURCES) {
    const shownIn = presenterIn(resource);
    for (const version of ALL_VERSIONS) {
      const stored = { id: 17, ...validBody(resource, 2, NEWEST_VERSION), createdAt, updatedAt, version: 3 };
      const body = shownIn(version)(stored);
      assert.deepEqual(Object.keys(body), representationMembers(resource, version), `${resource.plural} in ${version.id}`);
      assert.deepEqual(shownIn(version)(stored), body, 'made once per version, the same every time');
    }
  }
});

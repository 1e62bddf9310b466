import assert from 'node:assert/strict';
import { test } from 'node:test';
import { presenterIn, representationOf } from '../../src/resources/presenter.ts';
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
    const body = representationOf(resource).value(stored);
    assert.deepEqual(Object.keys(body), representationMembers(resource, NEWEST_VERSION), resource.plural);
    assert.equal(JSON.stringify(body), JSON.stringify({ id: 17, ...fields, createdAt, updatedAt }), resource.plural);
  }
});

test('readiness is presented with exactly status and the two checks', () => {
  const readiness = { status: 2 as const, checks: { database: 1 as const, schema: 2 as const, extra: 1 } };
  assert.equal(JSON.stringify(presentReadiness(readiness)), '{"status":2,"checks":{"database":1,"schema":2}}');
});

// Texts that JSON must escape, or that look like what the list's text is cut at.
const AWKWARD = ['plain', 'a "quoted" \\ back\\slash', 'tab\tnew\nline', '\u2028\u2029', '\ud800 lone', 'emoji 🦀', '\u0000items', '$& $1 $`'];

test("a representation's text is the JSON of its value, byte for byte, for every resource in every version", () => {
  for (const resource of ALL_RESOURCES) {
    const shownIn = presenterIn(resource);
    for (const version of ALL_VERSIONS) {
      for (const [n, awkward] of AWKWARD.entries()) {
        const fields = validBody(resource, n, NEWEST_VERSION);
        // Every text field of the newest holds the awkward text, if it is a free text (a code stays valid).
        for (const [name, value] of Object.entries(fields)) if (typeof value === 'string' && !/^[A-Z]{3}$/.test(value)) fields[name] = awkward;
        const stored = { id: 17 + n, ...fields, createdAt, updatedAt };
        const { value, json } = shownIn(version);
        assert.equal(json(stored), JSON.stringify(value(stored)), `${resource.plural} in ${version.id}`);
      }
    }
  }
});

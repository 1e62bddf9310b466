import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES, VERSIONS } from '../../src/registry.ts';
import { buildVersions } from '../../src/versions/api-versions.ts';
import type { Webhook } from '../../src/webhooks/model.ts';
import { versionInForce, webhookAt } from '../../src/webhooks/pinned-version.ts';

// Which version a webhook's deliveries and representation stand for around sunsets (docs/webhooks.md).
const [FIRST, LISTS, NEWEST] = ['2026-11-21', '2026-11-28', '2026-12-05'];
const [S1, S2] = [Date.parse('2027-01-01T00:00:00Z'), Date.parse('2027-06-01T00:00:00Z')];
const versions = buildVersions(VERSIONS, RESOURCES, { at: new Map([[FIRST, S1], [LISTS, S2]]), announcedAt: 0 });
const webhook: Webhook = {
  id: 1, url: 'https://hooks.example.com/', eventTypes: null, status: 1, secret: 's', previousSecret: null, previousSecretUntil: null,
  createdAt: '2026-11-22T00:00:00.000Z', updatedAt: '2026-11-22T00:00:00.000Z', version: 3, apiVersion: FIRST,
};

test('a version is in force until its sunset, then the oldest version served at that moment; one no longer known likewise', () => {
  const at = (pinned: string, when: number): string => versionInForce(versions, pinned, when).id;
  assert.deepEqual([at(FIRST, S1 - 1), at(FIRST, S1), at(FIRST, S2 - 1), at(FIRST, S2)], [FIRST, LISTS, LISTS, NEWEST]);
  assert.deepEqual([at(LISTS, S1), at(LISTS, S2), at(NEWEST, S2 + 1)], [LISTS, NEWEST, NEWEST]);
  assert.deepEqual([at('2026-11-14', S1 - 1), at('2026-11-14', S1)], [FIRST, LISTS]);
});

test('the oldest version served, not the next one: a newer version going first leaves an older one in force', () => {
  const inverted = buildVersions(VERSIONS, RESOURCES, { at: new Map([[LISTS, S1]]), announcedAt: 0 });
  assert.equal(versionInForce(inverted, LISTS, S1).id, FIRST);
});

test('a webhook shows the version in force; its tag moves at each sunset that changes it, never back, never onto a tag it had', () => {
  const shown = (stored: Webhook, when: number): [number, string] => {
    const standing = webhookAt(stored, versions, when);
    return [standing.version, standing.apiVersion];
  };
  assert.equal(webhookAt(webhook, versions, S1 - 1), webhook, 'unchanged while its version is served');
  assert.deepEqual([shown(webhook, S1 - 1), shown(webhook, S1), shown(webhook, S2)], [[3, FIRST], [5, LISTS], [6, NEWEST]]);
  // Written under tag 5 (the use cases store the version shown, one more): served again, tag 6, until the next sunset.
  const written = { ...webhook, apiVersion: LISTS, version: 6 };
  assert.deepEqual([shown(written, S1), shown(written, S2)], [[6, LISTS], [9, NEWEST]]);
});

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { openStream } from '../support/event-stream.ts';
import { followUntil } from '../support/events.ts';
import { API_AUDIENCE, startIdentityProvider } from '../support/identity-provider.ts';
import { bearer, startKeysServer } from '../support/keys.ts';
import { postJson, startTestServer } from '../support/server.ts';

// What ends a stream besides its reader (docs/events.md, The live stream): its key revoked (within 5 s, as for every request
// promises for every request), its access token's exp; and where it may start: an expired
// Last-Event-ID is 410 before any stream.
const CONTRACT_MS = 5_000;

test('a key revoked by this process, or behind its back (as another process would), ends its stream within 5 s', { timeout: 60_000 }, async () => {
  const server = await startKeysServer();
  try {
    const reader = await server.newKey({ name: 'reader', scopes: ['read'] });
    const here = await openStream(`${server.url}/api/events`, bearer(reader.key));
    assert.equal(here.status, 200);
    const revokedAt = Date.now();
    assert.equal((await fetch(`${server.url}/api/keys/${reader.id}`, { method: 'DELETE', headers: bearer(server.admin.key) })).status, 204);
    assert.deepEqual(await here.ended, { clean: true });
    assert.ok(Date.now() - revokedAt <= CONTRACT_MS, `ended ${Date.now() - revokedAt} ms after the revocation`);

    const other = await server.newKey({ name: 'other', scopes: ['read'] });
    const elsewhere = await openStream(`${server.url}/api/events`, bearer(other.key));
    // Still open after a few re-checks: only a refusal ends it.
    await sleep(2_500);
    const stillOpen = await Promise.race([elsewhere.ended.then(() => false), sleep(10, true)]);
    assert.equal(stillOpen, true);
    await server.database.sql(`UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE id = '${other.id}'`);
    const behindItsBack = Date.now();
    assert.deepEqual(await elsewhere.ended, { clean: true });
    assert.ok(Date.now() - behindItsBack <= CONTRACT_MS, `ended ${Date.now() - behindItsBack} ms after the revocation`);
  } finally {
    await server.stop();
  }
});

test('a key that expires ends its stream within 5 s of its expiresAt, and not before it', { timeout: 60_000 }, async () => {
  const server = await startKeysServer();
  try {
    const expiresAt = Date.now() + 4_000;
    const reader = await server.newKey({ name: 'short-lived', scopes: ['read'], expiresAt: new Date(expiresAt).toISOString() });
    const stream = await openStream(`${server.url}/api/events`, bearer(reader.key));
    assert.equal(stream.status, 200);
    assert.deepEqual(await stream.ended, { clean: true });
    const endedAt = Date.now();
    assert.ok(endedAt >= expiresAt, `ended ${expiresAt - endedAt} ms before the key expired`);
    assert.ok(endedAt <= expiresAt + CONTRACT_MS, `ended ${endedAt - expiresAt} ms after the key expired`);
    assert.equal((await openStream(`${server.url}/api/events`, bearer(reader.key))).status, 401, 'and the key opens no other');
  } finally {
    await server.stop();
  }
});

test("an access token's stream ends at its exp; a token already past it is 401 before any stream", { timeout: 60_000 }, async () => {
  const provider = await startIdentityProvider('ES256');
  const server = await startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE });
  try {
    const claims = (exp: number): Record<string, unknown> => ({ iss: provider.issuer, aud: API_AUDIENCE, sub: 'robot-1', exp, scope: 'read' });
    const exp = Math.floor(Date.now() / 1000) + 4;
    const stream = await openStream(`${server.url}/api/events`, bearer(provider.sign(claims(exp))));
    assert.equal(stream.status, 200);
    assert.deepEqual(await stream.ended, { clean: true });
    const endedAt = Date.now();
    assert.ok(endedAt >= exp * 1000 - 50, `ended ${exp * 1000 - endedAt} ms before exp`);
    assert.ok(endedAt <= exp * 1000 + 2_000, `ended ${endedAt - exp * 1000} ms after exp`);
    // Within the clock-skew allowance a past exp still passes for a request, but a stream would end at once.
    const past = await fetch(`${server.url}/api/events`, { headers: { accept: 'text/event-stream', ...bearer(provider.sign(claims(Math.floor(Date.now() / 1000) - 5))) } });
    assert.equal(past.status, 401);
    assert.equal(past.headers.get('www-authenticate'), 'Bearer error="invalid_token", error_description="The access token has expired."');
  } finally {
    await server.stop();
    await provider.stop();
  }
});

test('a credential that expires far ahead (30 days: longer than one timer holds) keeps its stream open: an access token, and an API key', { timeout: 60_000 }, async () => {
  const provider = await startIdentityProvider('ES256');
  const tokens = await startTestServer({ SVC_AUTH: 'jwt', SVC_JWT_ISSUER: provider.issuer, SVC_JWT_AUDIENCE: API_AUDIENCE });
  const keys = await startKeysServer();
  try {
    const thirtyDays = 30 * 86_400;
    const token = provider.sign({ iss: provider.issuer, aud: API_AUDIENCE, sub: 'robot-30d', exp: Math.floor(Date.now() / 1000) + thirtyDays, scope: 'read write' });
    const key = await keys.newKey({ name: 'thirty days', scopes: ['write'], expiresAt: new Date(Date.now() + thirtyDays * 1000).toISOString() });
    for (const [server, credential] of [[tokens, token], [keys, key.key]] as const) {
      const stream = await openStream(`${server.url}/api/events`, bearer(credential));
      assert.equal(stream.status, 200);
      // Past a re-check of the credential (every 2 s), then an event still comes.
      await sleep(2_500);
      assert.equal(await Promise.race([stream.ended.then(() => 'ended'), sleep(10, 'open')]), 'open', server === tokens ? 'the token\'s stream' : 'the key\'s stream');
      assert.equal((await postJson(`${server.url}/api/products`, { name: 'far ahead', priceInCents: 1 }, bearer(credential))).status, 201);
      const [message] = await stream.waitFor(1);
      assert.equal(message?.event, 'product.created');
      stream.close();
    }
  } finally {
    await keys.stop();
    await tokens.stop();
    await provider.stop();
  }
});

test('a Last-Event-ID whose following events are past retention is 410 events_expired, before any stream', { timeout: 60_000 }, async () => {
  const server = await startTestServer({ SVC_EVENTS_RETENTION: '10s' });
  try {
    for (const name of ['old', 'older']) assert.equal((await postJson(`${server.url}/api/products`, { name, priceInCents: 1 })).status, 201);
    // On PostgreSQL an event shows once every older transaction of the cluster has ended: follow until it does.
    const [first] = (await followUntil(server.url, '/api/events', (events) => events.length >= 2)).events;
    assert.ok(first !== undefined);
    await sleep(11_000);
    const response = await fetch(`${server.url}/api/events`, { headers: { accept: 'text/event-stream', 'last-event-id': first.id } });
    assert.equal(response.status, 410);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const problem = (await response.json()) as { code: string; detail: string };
    assert.equal(problem.code, 'events_expired');
    assert.equal(problem.detail, 'The events after the one Last-Event-ID names are no longer kept; start again without it.');
  } finally {
    await server.stop();
  }
});

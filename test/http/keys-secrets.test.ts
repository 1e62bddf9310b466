import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findPostgres } from '../support/postgres-binaries.ts';
import { bearer, type KeysServer, keyWithOtherSecret, type MadeKey, startKeysServer } from '../support/keys.ts';
import { patchJson, postJson } from '../support/server.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Every form in which a key's secret could be written down: the key, the secret, the secret with its
// checksum (the base62 body after the id), and the secret's 32 bytes raw, in hex and in base64.
function formsOf(key: string): { text: string[]; bytes: Buffer[] } {
  const secret = key.slice(17, 60);
  let value = 0n;
  for (const char of secret) value = value * 62n + BigInt(ALPHABET.indexOf(char));
  const raw = Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
  const text = [key, secret, key.slice(17), raw.toString('hex'), raw.toString('base64'), raw.toString('base64url')];
  return { text, bytes: [...text.map((form) => Buffer.from(form)), raw] };
}

function assertNoSecret(where: string, content: string | Buffer, keys: readonly string[]): void {
  for (const key of keys) {
    const { text, bytes } = formsOf(key);
    if (typeof content === 'string') for (const form of text) assert.ok(!content.includes(form), `${where} shows ${form}`);
    else for (const form of bytes) assert.equal(content.indexOf(form), -1, `${where} holds ${form.toString('hex')}`);
  }
}

// The database as a thief would take it: the SQLite file and its WAL, or a pg_dump of the PostgreSQL database.
function databaseImage(server: KeysServer): Buffer {
  const path = server.database.path;
  if (path !== undefined) return Buffer.concat([readFileSync(path), existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0)]);
  const lookup = findPostgres();
  assert.ok(lookup.found, 'the PostgreSQL pass has its programs');
  return execFileSync(join(lookup.bindir, 'pg_dump'), ['--no-password', '-d', String(server.database.env['SVC_DATABASE_URL'])], { maxBuffer: 64 * 1024 * 1024 });
}

describe('no secret anywhere but the 201 that made the key', () => {
  let server: KeysServer;
  const keys: MadeKey[] = [];
  // Every response but a key's own 201: status line, headers and body.
  const seen: string[] = [];
  before(async () => {
    server = await startKeysServer({ SVC_LOG_LEVEL: 'trace' });
    keys.push(server.admin);
  });
  after(() => server.stop());

  async function record(response: Promise<Response>): Promise<Response> {
    const answer = await response;
    const body = await answer.clone().text();
    seen.push(`${answer.status} ${JSON.stringify([...answer.headers])} ${body}`);
    return answer;
  }

  test('keys made, used, misused, listed, read and revoked leave no secret in responses, log lines or the database', async () => {
    const admin = bearer(server.admin.key);
    for (const scopes of [['write'], ['read'], ['admin']]) {
      const created = await postJson(`${server.url}/api/keys`, { name: `key ${scopes}`, scopes }, admin);
      assert.equal(created.status, 201);
      keys.push((await created.json()) as MadeKey);
    }
    const [writer, reader, second] = keys.slice(1) as [MadeKey, MadeKey, MadeKey];
    const product = await record(postJson(`${server.url}/api/products`, { name: 'Lamp', priceInCents: 1 }, bearer(writer.key)));
    const item = product.headers.get('location') ?? '';
    await record(patchJson(`${server.url}${item}`, { name: 'Lamp 2' }, bearer(writer.key)));
    await record(fetch(`${server.url}${item}`, { headers: bearer(reader.key) }));
    await record(postJson(`${server.url}/api/products`, { name: 'No', priceInCents: 1 }, bearer(reader.key)));
    await record(fetch(`${server.url}/api/products`, { headers: bearer(keyWithOtherSecret(writer.id)) }));
    await record(fetch(`${server.url}/api/products`, { headers: bearer(`${writer.key.slice(0, -1)}0`) }));
    await record(fetch(`${server.url}/api/products?key=${writer.id}`, { headers: { authorization: `Basic ${Buffer.from(`x:${reader.id}`).toString('base64')}` } }));
    await record(fetch(`${server.url}/api/keys`, { headers: admin }));
    await record(fetch(`${server.url}/api/keys/${writer.id}`, { headers: bearer(second.key) }));
    await record(postJson(`${server.url}/api/keys`, { name: 'replayed?', scopes: ['read'] }, { ...admin, 'idempotency-key': 'once' }));
    await record(fetch(`${server.url}/api/keys/${writer.id}`, { method: 'DELETE', headers: admin }));
    await record(fetch(`${server.url}/api/products`, { headers: bearer(writer.key) }));
    await record(fetch(`${server.url}/api/openapi.json`));
    assert.ok(seen.length >= 13);
    const secrets = keys.map((made) => made.key);
    seen.forEach((response, i) => assertNoSecret(`response ${i}`, response, secrets));

    server.app.logger.flush();
    const logs = JSON.stringify(server.logs);
    assert.ok(server.logs.length >= 15 && logs.includes(writer.id), 'the log lines were captured, naming the key ids');
    assertNoSecret('the log', logs, secrets);

    const image = databaseImage(server);
    for (const made of keys) {
      // Not vacuous: the image holds each key's public id and the digest stored in its place.
      assert.notEqual(image.indexOf(Buffer.from(made.id)), -1, `the database holds ${made.id}`);
      assert.notEqual(image.indexOf(Buffer.from(createHash('sha256').update(made.key).digest('base64url'))), -1, 'and its digest');
    }
    assertNoSecret(server.database.path === undefined ? 'pg_dump' : 'the SQLite file and its WAL', image, secrets);
  });
});

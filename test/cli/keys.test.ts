import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { createApiKey } from '../../src/api-keys.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { latestVersion } from '../../src/db/migrate.ts';
import { base62 } from '../../src/keys/format.ts';
import { spawnServe, urlOf } from '../ops/support.ts';
import { BIN, linesOf, type RunResult, runBin } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// bin/keys.js on the run's engine (the PostgreSQL pass runs this file too): how the first admin key is
// made. Exit 0 done, 1 refused or failed, 2 usage; a new key is printed once, alone on stdout.
const KEY_LINE = /^svc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}\n$/;

// A key of the real shape and checksum around `id`, with a secret no key has.
function madeUpKey(id: string): string {
  const body = `svc_${id}_${'s'.repeat(43)}`;
  return body + base62(BigInt(crc32(body)), 6);
}

// The same key with its last checksum character changed: no longer a key.
const respelled = (key: string): string => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;

// Neither stream shows any of `secrets`, nor a key's secret part alone.
function assertShowsNone(result: RunResult, secrets: readonly string[]): void {
  const output = result.stdout + result.stderr;
  for (const secret of secrets) {
    for (const part of secret.startsWith('svc_') ? [secret, secret.slice(17)] : [secret]) {
      assert.ok(!output.includes(part), `the output shows ${part.slice(0, 8)}…:\n${output}`);
    }
  }
}

describe('bin/keys.js', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  const keys = (args: string[], env: Record<string, string> = database.env): Promise<RunResult> => runBin(BIN.keys, args, { env });
  const secretOf = (key: string): string => key.trim().slice(17);

  test('create prints the key once, alone on stdout, a note on stderr; list shows it without any secret; the key works', async () => {
    const made = await keys(['create', '--name', 'first admin', '--scopes', 'admin']);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, KEY_LINE);
    const key = made.stdout.trim();
    const id = key.slice(4, 16);
    assert.match(made.stderr, new RegExp(`made API key ${id} \\(first admin; scopes admin; never expires; API version 2026-11-21\\)`));
    assert.match(made.stderr, /shown this once/);
    assert.ok(!made.stderr.includes(secretOf(key)));
    const other = await keys(['create', '--name', 'ci deploys', '--scopes', 'write,read', '--expires-at', '2099-01-01T00:00:00+01:00']);
    assert.equal(other.code, 0, other.stderr);
    const listed = await keys(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = linesOf(listed.stdout);
    assert.match(lines[0] ?? '', /^ID +SCOPES +CREATED +EXPIRES +REVOKED +VERSION +NAME$/);
    assert.match(lines[1] ?? '', new RegExp(`^${other.stdout.slice(4, 16)} +read,write +\\S+ +2098-12-31T23:00:00.000Z +- +2026-11-21 +ci deploys$`));
    assert.match(lines[2] ?? '', new RegExp(`^${id} +admin +\\S+ +- +- +2026-11-21 +first admin$`));
    for (const secret of [secretOf(key), secretOf(other.stdout)]) assert.ok(!(listed.stdout + listed.stderr).includes(secret));

    const server = spawnServe({ ...database.env, SVC_AUTH: 'keys' });
    try {
      const response = await fetch(`${await urlOf(server)}/api/keys`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200);
      assert.deepEqual(((await response.json()) as { id: string }[]).map((apiKey) => apiKey.id), [other.stdout.slice(4, 16), id]);
    } finally {
      server.kill();
      await server.exited;
    }
  });

  test('revoke revokes (again: still 0); an unknown id is refused with 1', async () => {
    const id = (await keys(['create', '--name', 'to revoke', '--scopes', 'read'])).stdout.slice(4, 16);
    const revoked = await keys(['revoke', id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`^API key ${id} is revoked \\(since \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z\\)`));
    assert.equal((await keys(['revoke', id])).stdout, revoked.stdout, 'a second revoke keeps the first time');
    assert.match(linesOf((await keys(['list'])).stdout).find((line) => line.startsWith(id)) ?? '', /^\S+ +read +\S+ +- +\d{4}-\S+Z +2026-11-21 +to revoke$/);
    const refused = await keys(['revoke', 'AAAAAAAAAAAA']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^no API key has the id AAAAAAAAAAAA \(the 12 characters after svc_/);
  });

  test('revoke takes a whole key, as a leak is found; a key made up around a real id, or of an unknown id, revokes nothing', async () => {
    const key = (await keys(['create', '--name', 'leaked', '--scopes', 'admin'])).stdout.trim();
    const id = key.slice(4, 16);
    const madeUp = madeUpKey(id);
    const other = await keys(['revoke', madeUp]);
    assert.equal(other.code, 1);
    assert.match(other.stderr, new RegExp(`^the key given is not API key ${id}'s: its secret differs, so nothing was revoked`));
    const unknown = madeUpKey('ZZZZZZZZZZZZ');
    const none = await keys(['revoke', unknown]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^no API key has the id ZZZZZZZZZZZZ \(the id of the key given\)/);
    assert.match(linesOf((await keys(['list'])).stdout).find((line) => line.startsWith(id)) ?? '', / +- +2026-11-21 +leaked$/, 'still live');

    const revoked = await keys(['revoke', key]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`^API key ${id} is revoked \\(since `));
    assert.match(linesOf((await keys(['list'])).stdout).find((line) => line.startsWith(id)) ?? '', / +\d{4}-\S+Z +2026-11-21 +leaked$/);
    for (const result of [other, none, revoked]) assertShowsNone(result, [key, madeUp, unknown]);
  });

  test('bad arguments exit 2 with the usage on stderr, before the database is touched, and print no key', async () => {
    const before = await database.countRows('api_keys');
    const cases: [string[], RegExp][] = [
      [[], /^a command is required\n/],
      [['mint'], /^unknown command "mint"\n/],
      [['create', '--scopes', 'read'], /^--name: name is required\n/],
      [['create', '--name', 'x'], /^--scopes: scopes is required\n/],
      [['create', '--name', ' ', '--scopes', 'read,root,read', '--expires-at', 'yesterday'], /^--name: name must not be empty\n--scopes: scopes\/1 must be one of read, write, admin\n--scopes: scopes\/2 repeats read\n--expires-at: expiresAt must be null or an RFC 3339/],
      [['create', '--name', 'x', '--scopes', 'read', '--expires-at', '2001-01-01T00:00:00Z'], /^--expires-at: expiresAt must be in the future\n/],
      [['create', '--name', 'x', '--scopes', 'read', '--owner', 'me'], /^unknown option "--owner"\n/],
      [['create', '--name'], /^--name needs a value/],
      [['create', '--name', '--scopes', 'read'], /^--name needs a value/],
      [['create', '--help=yes'], /^--help takes no value\n/],
      // parseArgs keeps the last of a repeated option: one of these would make an admin key.
      [['create', '--name', 'x', '--scopes', 'read', '--scopes', 'admin'], /^--scopes is given more than once: give each option once\n/],
      [['create', '--name', 'x', '--name', 'y', '--scopes', 'read'], /^--name is given more than once/],
      [['create', '--name=x', '--scopes', 'read', '--expires-at', '2098-01-01T00:00:00Z', '--expires-at=2099-01-01T00:00:00Z'], /^--expires-at is given more than once/],
      [['create', '-h', '--help'], /^--help is given more than once/],
      [['list', 'extra'], /^wrong arguments for list\n/],
      [['list', '--name', 'x'], /^wrong arguments for list\n/],
      [['revoke'], /^wrong arguments for revoke\n/],
      [['revoke', 'a', 'b'], /^wrong arguments for revoke\n/],
      [['revoke', 'nope'], /^revoke takes a key's id \(the 12 characters after svc_\) or a whole key; the argument is neither, and is not shown\n/],
      [['revoke', respelled(madeUpKey('AAAAAAAAAAAA'))], /^the key given is not a whole key: its length, characters or checksum are wrong/],
      [['create', '--name', 'x', '--scopes', 'read', '--api-version', '2026-13-01'], /^--api-version: apiVersion must be a version served: one of 2026-12-05, 2026-11-28, 2026-11-21\n/],
      [['create', '--name', 'x', '--scopes', 'read', '--api-version', 'latest'], /^--api-version: apiVersion must be a version served/],
      [['create', '--name', 'x', '--scopes', 'read', '--api-version'], /^--api-version needs a value/],
      [['create', '--name', 'x', '--scopes', 'read', '--api-version', '2026-11-21', '--api-version=2026-12-05'], /^--api-version is given more than once/],
      [['list', '--api-version', '2026-12-05'], /^wrong arguments for list\n/],
    ];
    for (const [args, problem] of cases) {
      const result = await keys(args, { SVC_DB_PATH: '/nonexistent/app.db' });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, problem, args.join(' '));
      assert.match(result.stderr, /\nusage:\n {2}node bin\/keys.js create --name NAME/);
      assert.equal(result.stdout, '');
    }
    assert.equal(await database.countRows('api_keys'), before);
    const help = await keys(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage:/);
  });

  test('create --api-version pins the key to a version served (default SVC_API_VERSION); list shows it; its header-less requests get it', async () => {
    const pinned = await keys(['create', '--name', 'pinned', '--scopes', 'admin', '--api-version', '2026-12-05']);
    assert.equal(pinned.code, 0, pinned.stderr);
    assert.match(pinned.stderr, /; never expires; API version 2026-12-05\)/);
    const defaulted = await keys(['create', '--name', 'defaulted', '--scopes', 'read'], { ...database.env, SVC_API_VERSION: '2026-11-28' });
    assert.equal(defaulted.code, 0, defaulted.stderr);
    const listed = linesOf((await keys(['list'])).stdout);
    const lineOf = (made: RunResult): string => listed.find((line) => line.startsWith(made.stdout.slice(4, 16))) ?? '';
    assert.match(lineOf(pinned), / +2026-12-05 +pinned$/);
    assert.match(lineOf(defaulted), / +2026-11-28 +defaulted$/);
    // A version past its sunset is served no more, so no key may pin it: refused before the database is touched.
    const before = await database.countRows('api_keys');
    const sunset = { ...database.env, SVC_API_SUNSET: '2026-11-21=2020-01-01T00:00:00Z', SVC_API_VERSION: '2026-11-28' };
    const refused = await keys(['create', '--name', 'old', '--scopes', 'read', '--api-version', '2026-11-21'], sunset);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^--api-version: apiVersion must be a version served: one of 2026-12-05, 2026-11-28\nusage:/);
    assert.equal(await database.countRows('api_keys'), before);

    const server = spawnServe({ ...database.env, SVC_AUTH: 'keys' });
    try {
      const url = await urlOf(server);
      const listOf = async (made: RunResult): Promise<unknown> => (await fetch(`${url}/api/keys?limit=1`, { headers: { authorization: `Bearer ${made.stdout.trim()}` } })).json();
      assert.deepEqual(Object.keys((await listOf(pinned)) as object), ['data', 'hasMore'], 'the key pinned to 2026-12-05 gets lists as objects');
      const got = await fetch(`${url}/api/keys/${defaulted.stdout.slice(4, 16)}`, { headers: { authorization: `Bearer ${pinned.stdout.trim()}` } });
      assert.equal(((await got.json()) as { apiVersion: string }).apiVersion, '2026-11-28');
    } finally {
      server.kill();
      await server.exited;
    }
  });

  test('list prints every key, page after page: 401 keys are three pages of 200', async () => {
    const db = database.open();
    let made: string[];
    try {
      const created = await Promise.all(Array.from({ length: 401 }, (_, i) => createApiKey(db, { name: `bulk ${i}`, scopes: ['read'] })));
      made = created.map((key) => key.id);
    } finally {
      await closeDatabase(db);
    }
    const listed = await keys(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    const ids = linesOf(listed.stdout).slice(1).map((line) => line.slice(0, 12));
    assert.equal(ids.length, await database.countRows('api_keys'));
    assert.equal(new Set(ids).size, ids.length, 'no key twice');
    const shown = new Set(ids);
    assert.deepEqual(made.filter((id) => !shown.has(id)), [], 'every key is listed');
  });

  test('no message of any command shows a credential it was given: a key, a token, a database password', async () => {
    const real = (await keys(['create', '--name', 'real', '--scopes', 'read'])).stdout.trim();
    const jwt = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"sub":"u1"}').toString('base64url')}.c2lnbmF0dXJl`;
    const apiToken = 'tok-0123456789abcdefghij';
    const password = 'pw-0123456789abcdefghij';
    const secrets = [real, madeUpKey(real.slice(4, 16)), madeUpKey('ZZZZZZZZZZZZ'), jwt, apiToken, password];
    const runs: [string[], Record<string, string>?][] = [
      [['revoke', madeUpKey(real.slice(4, 16))]],
      [['revoke', madeUpKey('ZZZZZZZZZZZZ')]],
      [['revoke', respelled(real)]],
      [['revoke', real.slice(17)]],
      [['revoke', apiToken]],
      [[apiToken]],
      [['create', `--${apiToken}=x`, '--name', 'x', '--scopes', 'read']],
      [['list', real]],
      [['create', '--name', 'x', '--scopes', real, '--expires-at', jwt]],
      [['create', '--name', real, '--name', real, '--scopes', 'read']],
      [['create', '--name', `pasted ${real} and ${jwt}`, '--scopes', 'read']],
      [['list']],
      [['list'], { ...database.env, SVC_API_TOKEN: `${apiToken} with spaces` }],
      [['list'], { SVC_DATABASE_URL: `postgres://svc:${password}@127.0.0.1:1/svc` }],
      [['revoke', real]],
    ];
    const codes: (number | null)[] = [];
    for (const [args, env] of runs) {
      const result = await keys(args, env);
      codes.push(result.code);
      assertShowsNone(result, secrets);
    }
    assert.deepEqual(codes, [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 1, 1, 0]);
  });

  test('a missing, unmigrated or older database is refused with 1 and the advice to migrate, changing nothing', async () => {
    const empty = await createTestDatabase({ migrated: false });
    const older = await createTestDatabase();
    await older.setSchemaVersion(latestVersion() - 1);
    try {
      const missing = database.engine === 'sqlite' ? { SVC_DB_PATH: `${database.path ?? ''}.missing` } : null;
      for (const env of [empty.env, older.env, ...(missing === null ? [] : [missing])]) {
        for (const args of [['create', '--name', 'x', '--scopes', 'admin'], ['list'], ['revoke', 'AAAAAAAAAAAA']]) {
          const result = await keys(args, env);
          assert.equal(result.code, 1, `${args[0]} on ${JSON.stringify(env)}`);
          assert.match(result.stderr, /run `node bin\/migrate\.js`/);
          assert.equal(result.stdout, '');
        }
      }
      assert.equal(await older.countRows('api_keys'), 0);
    } finally {
      await empty.drop();
      await older.drop();
    }
  });
});

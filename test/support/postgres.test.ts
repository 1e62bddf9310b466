import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inCi } from './postgres-binaries.ts';
import { isAlive } from './postgres-process.ts';
import { type PostgresCluster, psqlAt, skipWithoutPostgres, startPostgres } from './postgres.ts';

const CHILD = fileURLToPath(new URL('./postgres-child.ts', import.meta.url));

/** A folder holding executable scripts with these names and bodies. */
function fakeBindir(programs: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fake-pg-'));
  for (const [name, body] of Object.entries(programs)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  // A guard against hanging forever, not a speed assertion.
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`still not true after 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function ownerUid(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

describe('skipWithoutPostgres: the rule for tests that need PostgreSQL', () => {
  const empty = fakeBindir({});
  const all = { initdb: '', pg_ctl: '', psql: '' };
  after(() => rmSync(empty, { recursive: true, force: true }));

  test('under CI=true, missing programs fail the run instead of skipping', () => {
    assert.throws(() => skipWithoutPostgres({ CI: 'true', PG_BINDIR: empty }), (error: Error) => {
      assert.match(error.message, /^CI=true and PostgreSQL 14\+ server programs missing: initdb, pg_ctl, postgres, psql not found/);
      assert.match(error.message, /apt-get install postgresql/);
      return true;
    });
  });

  test('on a developer machine, the skip message names what is missing and how to install it', () => {
    const message = skipWithoutPostgres({ PG_BINDIR: empty });
    assert.equal(typeof message, 'string');
    assert.match(String(message), new RegExp(`initdb, pg_ctl, postgres, psql not found in ${empty} \\(from PG_BINDIR\\)`));
    assert.match(String(message), /Install them with `apt-get install postgresql`/);
  });

  test('only the missing programs are named', () => {
    const partial = fakeBindir({ initdb: '', psql: '' });
    assert.match(String(skipWithoutPostgres({ PG_BINDIR: partial })), /: pg_ctl, postgres not found in /);
    rmSync(partial, { recursive: true, force: true });
  });

  test('a server older than 14 counts as missing', () => {
    const old = fakeBindir({ ...all, postgres: 'echo "postgres (PostgreSQL) 13.16"' });
    assert.match(String(skipWithoutPostgres({ PG_BINDIR: old })), /postgres is not PostgreSQL 14 or newer/);
    rmSync(old, { recursive: true, force: true });
  });

  test('without PG_BINDIR, pg_config and Debian folder, the message says where it looked', () => {
    const message = skipWithoutPostgres({ PATH: empty }, join(empty, 'no-such-root'));
    assert.match(String(message), /PG_BINDIR is not set, no `pg_config` on the PATH names them, and .*no-such-root\/<major>\/bin does not exist/);
  });

  test('CI counts as set for any value but empty, false and 0', () => {
    assert.deepEqual(['true', '1', 'yes', '', 'false', '0'].map((value) => inCi({ CI: value })), [true, true, true, false, false, false]);
    assert.equal(inCi({}), false);
  });
});

describe('a throwaway cluster', { skip: skipWithoutPostgres() }, () => {
  let cluster: PostgresCluster;
  before(async () => {
    cluster = await startPostgres();
  });
  after(() => cluster.stop());

  test('the role svc logs in over TCP with its password; synchronous_commit on, fsync off', async () => {
    assert.match(cluster.url, /^postgres:\/\/svc:secret@127\.0\.0\.1:\d+\/svc$/);
    const row = await psqlAt(cluster.url, "SELECT current_user, current_database(), current_setting('synchronous_commit'), current_setting('fsync'), inet_server_addr()");
    assert.equal(row, 'svc|svc|on|off|127.0.0.1');
  });

  test('a wrong password is refused', async () => {
    await assert.rejects(psqlAt(cluster.url.replace(':secret@', ':wrong@'), 'SELECT 1'), /password authentication failed for user "svc"/);
  });

  test('the server runs as an unprivileged user', () => {
    const [postmaster] = cluster.processIds();
    assert.ok(postmaster !== undefined);
    const expected = process.getuid?.() === 0 ? undefined : process.getuid?.();
    if (expected === undefined) assert.notEqual(ownerUid(postmaster), 0);
    else assert.equal(ownerUid(postmaster), expected);
  });

  test('each created database is a copy of the template, apart from the others', async () => {
    await cluster.sql('CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text NOT NULL)', 'svc_template');
    await cluster.sql('ALTER TABLE notes OWNER TO svc', 'svc_template');
    const first = await cluster.createDatabase();
    const second = await cluster.createDatabase();
    assert.match(first, /\/svc_test_1$/);
    assert.equal(await psqlAt(first, "INSERT INTO notes (body) VALUES ('only in the first') RETURNING id"), '1');
    assert.equal(await psqlAt(second, 'SELECT count(*) FROM notes'), '0');
    assert.equal(await psqlAt(first, 'SELECT body FROM notes'), 'only in the first');
  });

  test('the role svc creates and drops databases from the template itself, given only the URL', async () => {
    await psqlAt(cluster.url, 'CREATE DATABASE made_by_svc TEMPLATE svc_template');
    assert.equal(await psqlAt(cluster.urlFor('made_by_svc'), 'SELECT current_user, count(*) FROM notes'), 'svc|0');
    await psqlAt(cluster.url, 'DROP DATABASE made_by_svc WITH (FORCE)');
    assert.equal(await psqlAt(cluster.url, "SELECT count(*) FROM pg_database WHERE datname = 'made_by_svc'"), '0');
  });

  test('restart keeps the port and the committed data; clients connect again', async () => {
    await psqlAt(cluster.url, ['CREATE TABLE kept (value text)', "INSERT INTO kept VALUES ('before restart')"]);
    const [before] = cluster.processIds();
    const port = cluster.port;
    await cluster.restart();
    assert.notEqual(cluster.processIds()[0], before);
    assert.equal(cluster.port, port);
    assert.equal(await psqlAt(cluster.url, 'SELECT value FROM kept'), 'before restart');
  });

  test('while stopped, connections are refused (no hang); a crash keeps acknowledged commits', async () => {
    await psqlAt(cluster.url, "INSERT INTO kept VALUES ('before the crash')");
    await cluster.stopServer('immediate');
    assert.deepEqual(cluster.processIds(), []);
    await assert.rejects(psqlAt(cluster.url, 'SELECT 1'), /Connection refused/);
    await cluster.startServer();
    assert.equal(await psqlAt(cluster.url, 'SELECT count(*) FROM kept'), '2');
  });

  test('stop ends every process of the cluster and removes its folder', async () => {
    const pids = cluster.processIds();
    assert.ok(pids.length >= 2, `postmaster and its children: ${pids.join(',')}`);
    await cluster.stop();
    assert.deepEqual(pids.filter(isAlive), []);
    assert.equal(existsSync(cluster.dir), false);
  });
});

describe('a test process that dies', { skip: skipWithoutPostgres() }, () => {
  test('leaves no PostgreSQL behind: the watchdog shuts the cluster down and removes its folder', async () => {
    const child = spawn(process.execPath, [CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before starting its cluster`)));
    });
    const started = JSON.parse(line) as { url: string; dir: string; pids: number[] };
    assert.ok(started.pids.length >= 2);
    assert.equal(await psqlAt(started.url, "SELECT current_setting('fsync')"), 'on');
    child.kill('SIGKILL');
    await waitUntil(() => started.pids.every((pid) => !isAlive(pid)), `processes ${started.pids.join(',')} ended`);
    await waitUntil(() => !existsSync(started.dir), `${started.dir} removed`);
  });
});

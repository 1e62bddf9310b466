import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN, linesOf, runBin } from '../support/cli.ts';

const folders: string[] = [];
after(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A temporary working directory, with a `.env` file holding `dotEnv` when given. */
function workingDir(dotEnv?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-env-'));
  folders.push(dir);
  if (dotEnv !== undefined) writeFileSync(join(dir, '.env'), dotEnv);
  return dir;
}

test('SVC_PORT=abc stops serve with one stderr line naming SVC_PORT, the value and the range', async () => {
  const result = await runBin(BIN.serve, [], { env: { SVC_PORT: 'abc' }, cwd: workingDir() });
  assert.equal(result.code, 1);
  assert.deepEqual(linesOf(result.stderr), ['invalid SVC_PORT="abc": expected an integer from 0 to 65535']);
  assert.equal(result.stdout, '', 'nothing was started, so nothing was logged');
});

test('the headers/request timeout cross-check stops serve before it listens', async () => {
  const env = { SVC_PORT: '0', SVC_HEADERS_TIMEOUT_MS: '20000', SVC_REQUEST_TIMEOUT_MS: '10000' };
  const result = await runBin(BIN.serve, [], { env, cwd: workingDir() });
  assert.equal(result.code, 1);
  assert.deepEqual(linesOf(result.stderr), ['invalid SVC_HEADERS_TIMEOUT_MS="20000": expected at most SVC_REQUEST_TIMEOUT_MS (10000)']);
});

test('a .env file in the working directory is read', async () => {
  const cwd = workingDir('# settings for this machine\nSVC_LOG_LEVEL=loud\n');
  const result = await runBin(BIN.serve, [], { cwd });
  assert.equal(result.code, 1);
  assert.deepEqual(linesOf(result.stderr), ['invalid SVC_LOG_LEVEL="loud": expected one of fatal, error, warn, info, debug, trace, silent']);
});

test('real environment variables win over .env', async () => {
  // .env's port is invalid and its database path is relative to the working directory: if the real
  // SVC_PORT won, start-up gets past configuration and stops at the database that .env names.
  const cwd = workingDir('SVC_PORT=abc\nSVC_DB_PATH=from-dotenv/app.db\n');
  const result = await runBin(BIN.serve, [], { env: { SVC_PORT: '0' }, cwd });
  assert.equal(result.code, 1);
  assert.doesNotMatch(result.stderr, /SVC_PORT/);
  assert.match(result.stderr, /database file from-dotenv\/app\.db does not exist; run `node bin\/migrate\.js`/);
});

test('migrate reads .env too, and the default database path is relative to the working directory', async () => {
  const cwd = workingDir('SVC_DB_PATH=var/db/app.db\n');
  const status = await runBin(BIN.migrate, ['--status'], { cwd });
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /database var\/db\/app\.db is at version 0/);
  const plain = await runBin(BIN.migrate, ['--status'], { cwd: workingDir() });
  assert.match(plain.stdout, /database data\/app\.db is at version 0/);
});

test('an unreadable .env stops start-up with one line, not a stack trace', async () => {
  const cwd = workingDir();
  mkdirSync(join(cwd, '.env')); // a folder where the file should be
  const result = await runBin(BIN.serve, [], { cwd });
  assert.equal(result.code, 1);
  const lines = linesOf(result.stderr);
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0] ?? '', /^cannot read \.env: /);
});

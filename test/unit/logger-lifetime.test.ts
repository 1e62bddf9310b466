import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { migratedDatabaseFile } from '../support/server.ts';

const src = (path: string): string => new URL(`../../src/${path}`, import.meta.url).href;

// Each check runs in a child process of its own: a collection needs --expose-gc, and the exit flush
// needs a process that really exits.
function runModule(code: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--expose-gc', '--no-warnings', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const lastLine = (stdout: string): unknown => JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? 'null');

// WeakRefs made in one turn live until its end, so each check lets a turn pass before collecting.
const COLLECTED = `
const settle = () => new Promise((resolve) => setImmediate(resolve));
async function collected(ref) {
  for (let i = 0; i < 10 && ref.deref() !== undefined; i++) {
    await settle();
    globalThis.gc();
  }
  return ref.deref() === undefined;
}
`;

test('a logger that was used and dropped is collected, alone or inside createApp and startServer', (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const code = `
import { createLogger } from '${src('log/logger.ts')}';
import { createApp } from '${src('app.ts')}';
import { loadConfig } from '${src('config.ts')}';
import { openDatabase } from '${src('sqlite/database.ts')}';
import { startServer } from '${src('server.ts')}';
${COLLECTED}
// What a leak would keep: the logger, and above all its writer (flush, the pending text, the sink).
const parts = (logger) => [logger, logger.flush].map((part) => new WeakRef(part));
const lines = [];
function loggerUsedOnce() {
  const sink = (chunk) => lines.push(chunk);
  const logger = createLogger('info', sink);
  logger.info('used once');
  return [...parts(logger), new WeakRef(sink)];
}
const config = loadConfig({ SVC_DB_PATH: process.env.DB_PATH, SVC_PORT: '0', SVC_LOG_LEVEL: 'info', SVC_DB_DURABILITY: 'normal' });
const db = openDatabase(process.env.DB_PATH);
const appLogger = () => parts(createApp({ db, config }).logger);
async function serverLogger() {
  const running = await startServer(config);
  await (await fetch(running.url + '/api/ping')).arrayBuffer();
  await running.close();
  return parts(running.app.logger);
}
const allCollected = async (refs) => (await Promise.all(refs.map(collected))).every(Boolean);
const alone = loggerUsedOnce();
const inApp = appLogger();
const inServer = await serverLogger();
const result = { alone: await allCollected(alone), inApp: await allCollected(inApp), inServer: await allCollected(inServer), written: lines.length };
db.close();
console.log(JSON.stringify(result));
`;
  const run = runModule(code, { DB_PATH: dbPath });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(lastLine(run.stdout), { alone: true, inApp: true, inServer: true, written: 1 });
});

test('lines written just before process.exit reach stdout, from loggers kept or already dropped', () => {
  const code = `
import { createLogger } from '${src('log/logger.ts')}';
function writeAndDrop() {
  const logger = createLogger('info');
  for (let i = 0; i < 3; i++) logger.info('dropped ' + i);
}
writeAndDrop();
// Collected now, a dropped logger would take its lines with it.
globalThis.gc();
const kept = createLogger('info');
kept.info('kept');
process.exit(0);
`;
  const run = runModule(code);
  assert.equal(run.status, 0, run.stderr);
  const messages = run.stdout
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  assert.deepEqual(messages.sort(), ['dropped 0', 'dropped 1', 'dropped 2', 'kept']);
});

test('a logger flushed by fatal() before process.exit writes each line once', () => {
  const code = `
import { createLogger } from '${src('log/logger.ts')}';
const logger = createLogger('info');
logger.info('before');
logger.fatal('giving up');
process.exit(1);
`;
  const run = runModule(code);
  assert.equal(run.status, 1, run.stderr);
  assert.deepEqual(
    run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg),
    ['before', 'giving up'],
  );
});

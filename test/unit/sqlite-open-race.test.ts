import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';

const FILES = 60;
const folder = mkdtempSync(join(tmpdir(), 'svc-open-race-'));
after(() => rmSync(folder, { recursive: true, force: true }));

// Opens FILES new files, each at a moment shared with the other process, and prints what failed.
const OPENER = `
import { openDatabase } from ${JSON.stringify(new URL('../../src/sqlite/database.ts', import.meta.url).href)};
const [folder, start] = [process.argv[1], Number(process.argv[2])];
const failures = [];
for (let i = 0; i < ${FILES}; i++) {
  while (Date.now() < start + i * 15) {} // both processes open file i at the same millisecond
  try { openDatabase(folder + '/' + i + '.db', { create: true }).close(); } catch (error) { failures.push(error.message); }
}
console.log(JSON.stringify(failures));
`;

function opener(start: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '-e', OPENER, folder, String(start)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`opener exited ${code}: ${out}`))));
  });
}

test('two processes opening the same new file at once both get it, in WAL mode (neither is "database is locked")', async () => {
  // Switching a new file to WAL from two processes at once made one of them fail at once, about one
  // open in ten, without SQLite's busy wait: two migrators started together met it.
  const start = Date.now() + 1_500; // both children started and loaded by then
  const failures = await Promise.all([opener(start), opener(start)]);
  assert.deepEqual(failures, [[], []]);
  for (let i = 0; i < FILES; i++) {
    const db = new DatabaseSync(join(folder, `${i}.db`), { readOnly: true });
    assert.equal(db.prepare('PRAGMA journal_mode').get()?.['journal_mode'], 'wal');
    db.close();
  }
});

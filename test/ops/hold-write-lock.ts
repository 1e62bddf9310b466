// A second process on the service's SQLite file, as another worker, `bin/migrate.js` or a backup
// tool would be: takes the file's write lock (BEGIN IMMEDIATE), says "locked", and holds it until a
// line arrives on stdin (or stdin closes, so it never outlives the test); then says "released".
// Usage: node test/ops/hold-write-lock.ts <database file>
import { DatabaseSync } from 'node:sqlite';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: node test/ops/hold-write-lock.ts <database file>');
// The service may hold the lock for a moment (one batch); this process may wait for it.
const db = new DatabaseSync(path, { timeout: 10_000 });
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\n');

function release(): void {
  db.exec('ROLLBACK');
  db.close();
  process.stdout.write('released\n', () => process.exit(0));
}
process.stdin.once('data', release);
process.stdin.once('end', release);

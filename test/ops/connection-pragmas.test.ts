import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { startServer } from '../../src/server.ts';
import { migratedDatabaseFile } from '../support/server.ts';

// The connections on which statements are prepared while `start` runs: the server prepares its
// repositories' statements on the connection it serves with. Observed, not replaced: the real
// method runs, and it is put back before anything else happens.
async function connectionsPreparedOn<T>(start: () => Promise<T>): Promise<{ started: T; connections: Set<DatabaseSync> }> {
  const connections = new Set<DatabaseSync>();
  const prepare = DatabaseSync.prototype.prepare;
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, ...args: Parameters<typeof prepare>) {
    connections.add(this);
    return prepare.apply(this, args);
  };
  try {
    return { started: await start(), connections };
  } finally {
    DatabaseSync.prototype.prepare = prepare;
  }
}

function pragma(db: DatabaseSync, name: string): unknown {
  const row = db.prepare(`PRAGMA ${name}`).get();
  return row === undefined ? undefined : Object.values(row)[0];
}

// SQLite's numbers for PRAGMA synchronous.
const SYNCHRONOUS = { normal: 1, full: 2 } as const;

for (const durability of ['full', 'normal'] as const) {
  test(`the connection a started server serves with has the promised pragmas (durability ${durability})`, async (t) => {
    const { dir, dbPath } = migratedDatabaseFile();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // The default durability is named by leaving the variable out, as an operator would.
    const env = { SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DB_PATH: dbPath, ...(durability === 'full' ? {} : { SVC_DB_DURABILITY: durability }) };
    const config = loadConfig(env);
    const { started: server, connections } = await connectionsPreparedOn(() => startServer(config, { logger: createLogger('silent') }));
    t.after(() => server.close());
    const open = [...connections].filter((db) => db.isOpen);
    assert.equal(open.length, 1, 'one connection serves');
    const db = open[0] as DatabaseSync;
    assert.equal(pragma(db, 'journal_mode'), 'wal');
    assert.equal(pragma(db, 'synchronous'), SYNCHRONOUS[durability]);
    assert.equal(pragma(db, 'foreign_keys'), 1);
    // A write waits for another connection's lock on timers, never on the event loop's thread.
    assert.equal(pragma(db, 'busy_timeout'), 0);
    assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
  });
}

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { constants, DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase } from '../../src/db/engine.ts';
import { RESOURCES } from '../../src/registry.ts';
import { BOUND_LIMIT } from '../../src/sqlite/limit.ts';
import { filtersOf, validBody } from '../support/resources.ts';
import { postJson } from '../support/server.ts';
import { createTestDatabase } from '../support/test-database.ts';

// SQLite asks the authorizer while it compiles a statement, never while it runs one: a call during a
// repeated request is a statement compiled again. BEGIN, COMMIT and savepoints are compiled by each
// db.exec (the write batcher's), by design; everything else is prepared once.
const BY_DESIGN = new Set([constants.SQLITE_TRANSACTION, constants.SQLITE_SAVEPOINT]);
const hasAuthorizer = typeof (DatabaseSync.prototype as { setAuthorizer?: unknown }).setAuthorizer === 'function';

describe('SQLite statements are prepared once', () => {
  test('no statement in src/sqlite binds a plain LIMIT ? (SQLite compiles such a statement again at every run)', () => {
    const dir = join(import.meta.dirname, '../../src/sqlite');
    const plain = readdirSync(dir)
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').map((line, i) => ({ where: `${name}:${i + 1}`, line })))
      // Comments may name the form they warn against.
      .filter(({ line }) => !/^\s*(\*|\/\/|\/\*)/.test(line) && /LIMIT\s+\?/i.test(line));
    assert.deepEqual(plain.map(({ where }) => where), []);
    assert.doesNotMatch(BOUND_LIMIT, /LIMIT\s+\?/i);
  });

  test('BOUND_LIMIT limits as LIMIT ? does, and refuses what it refuses', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (4)');
    const read = db.prepare(`SELECT id FROM t ORDER BY id ${BOUND_LIMIT}`);
    assert.deepEqual([2, 3, 0, 9].map((limit) => read.all(limit).length), [2, 3, 0, 4]);
    assert.throws(() => read.all(2.5), /datatype mismatch/);
    db.close();
  });

  // node:sqlite has setAuthorizer from Node 24.10 (22.18, the oldest supported, lacks it): there the
  // source check above stands alone.
  test('repeated reads compile nothing: lists with other limits, filters and cursors, the feed, webhooks, deliveries', { skip: !hasAuthorizer && 'node:sqlite has no setAuthorizer in this Node' }, async () => {
    const database = await createTestDatabase({ engine: 'sqlite' });
    const db = database.open() as DatabaseSync;
    const config = loadConfig({ ...database.env, SVC_LOG_LEVEL: 'silent', SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const server = createServer(createApp({ db, config }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const webhook = (await (await postJson(`${base}/api/webhooks`, { url: 'http://127.0.0.1:9/hook' })).json()) as { id: number };
      const reads: string[] = [`/api/events?limit=LIMIT`, `/api/webhooks?limit=LIMIT`, `/api/webhooks/${webhook.id}/deliveries?limit=LIMIT`];
      for (const resource of RESOURCES) {
        for (let n = 0; n < 4; n++) assert.equal((await postJson(`${base}${resource.path}`, validBody(resource, n))).status, 201);
        // The default version lists a bare array.
        const [newest] = (await (await fetch(`${base}${resource.path}?limit=1`)).json()) as { id: number }[];
        assert.ok(newest !== undefined);
        reads.push(`${resource.path}?limit=LIMIT`, `${resource.path}?limit=LIMIT&cursor=CURSOR`);
        for (const { field, value } of filtersOf(resource)) reads.push(`${resource.path}?limit=LIMIT&${field}=${String(value)}`);
        reads.push(`${resource.path}/${newest.id}`);
      }
      const read = async (path: string, limit: number): Promise<void> => {
        let url = `${base}${path.replace('LIMIT', String(limit))}`;
        if (url.includes('CURSOR')) {
          const first = await fetch(url.replace(/&cursor=CURSOR/, ''));
          const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
          assert.ok(next !== undefined, `${path}: a next page`);
          url = new URL(next, base).href;
        }
        const response = await fetch(url);
        assert.equal(response.status, 200, url);
        await response.arrayBuffer();
      };
      const compiled: string[] = [];
      // Setting an authorizer makes every statement compile again once, under it.
      db.setAuthorizer((action, first, second) => {
        if (!BY_DESIGN.has(action)) compiled.push(`${action} ${String(first)} ${String(second)}`);
        return constants.SQLITE_OK;
      });
      // Once to compile them and what is prepared on first use (a filter's page), then with other limits.
      for (const path of reads) await read(path, 2);
      assert.ok(compiled.length > 0, 'the authorizer saw the statements compiled');
      compiled.length = 0;
      for (const limit of [3, 2, 1]) for (const path of reads) await read(path, limit);
      assert.deepEqual(compiled, [], 'statements compiled while requests repeated');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeDatabase(db);
      await database.drop();
    }
  });
});

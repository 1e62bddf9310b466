import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latestVersion } from '../../src/db/migrate.ts';
import { startAppServer } from '../support/app-server.ts';
import { startTestServer } from '../support/server.ts';

test('GET /api/ping is 200 with exactly the Readiness members when the database is current', async () => {
  const server = await startTestServer();
  try {
    const response = await fetch(`${server.url}/api/ping`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(response.headers.get('cache-control'), 'no-store', 'never cached');
    assert.equal(await response.text(), '{"status":1,"checks":{"database":1,"schema":1}}');
  } finally {
    await server.stop();
  }
});

test('a schema version other than the build expects is 503 with schema: 2, and recovers when it matches again', async () => {
  const server = await startTestServer();
  try {
    for (const version of [latestVersion() + 1, latestVersion() - 1]) {
      await server.database.setSchemaVersion(version);
      const response = await fetch(`${server.url}/api/ping`);
      assert.equal(response.status, 503, `schema version ${version}`);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(await response.text(), '{"status":2,"checks":{"database":1,"schema":2}}');
      const head = await fetch(`${server.url}/api/ping`, { method: 'HEAD' });
      assert.equal(head.status, 503);
    }
    await server.database.setSchemaVersion(latestVersion());
    assert.equal((await fetch(`${server.url}/api/ping`)).status, 200);
  } finally {
    await server.stop();
  }
});

test('a database with no migration recorded at all is 503 with schema: 2, the database answering', async () => {
  const server = await startTestServer();
  try {
    // SQLite: user_version 0. PostgreSQL: no schema_migrations table at all, as before the first migrate.
    if (server.database.engine === 'postgres') await server.database.sql('DROP TABLE schema_migrations');
    else await server.database.setSchemaVersion(0);
    const response = await fetch(`${server.url}/api/ping`);
    assert.equal(response.status, 503);
    assert.equal(await response.text(), '{"status":2,"checks":{"database":1,"schema":2}}');
  } finally {
    await server.stop();
  }
});

test('a database that cannot be read is 503 with database: 2 (and schema unknown: 2)', async () => {
  const server = await startAppServer();
  try {
    await server.breakDatabase();
    const response = await fetch(`${server.url}/api/ping`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await response.text(), '{"status":2,"checks":{"database":2,"schema":2}}');
  } finally {
    await server.stop();
  }
});

test('readiness is exempt from rate limiting', async () => {
  const server = await startTestServer({ SVC_RATE_LIMIT: '2', SVC_RATE_LIMIT_WINDOW_S: '60' });
  try {
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${server.url}/api/ping`)).status, 200, `ping ${i + 1}`);
  } finally {
    await server.stop();
  }
});

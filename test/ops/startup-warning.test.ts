import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spawnServe } from './support.ts';

// A database that does not exist: start-up logs its warnings, then stops before it listens anywhere.
const dir = mkdtempSync(join(tmpdir(), 'svc-warning-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const missing = join(dir, 'missing.db');

async function warningsFor(env: Record<string, string>): Promise<Record<string, unknown>[]> {
  const serve = spawnServe({ SVC_DB_PATH: missing, ...env });
  try {
    assert.equal(await serve.exited, 1);
    return serve.lines.filter((line) => line['level'] === 40);
  } finally {
    serve.kill();
  }
}

test('a listener beyond loopback without SVC_AUTH or SVC_API_TOKEN logs a warning', async () => {
  const warnings = await warningsFor({ SVC_HOST: '0.0.0.0' });
  assert.equal(warnings.length, 1);
  assert.match(String(warnings[0]?.['msg']), /SVC_API_TOKEN/);
  assert.equal(warnings[0]?.['host'], '0.0.0.0');
});

test('no warning with a token, with callers known (SVC_AUTH), or on a loopback address', async () => {
  assert.deepEqual(await warningsFor({ SVC_HOST: '0.0.0.0', SVC_API_TOKEN: 'a-long-enough-token-1234' }), []);
  assert.deepEqual(await warningsFor({ SVC_HOST: '0.0.0.0', SVC_AUTH: 'keys' }), []);
  const jwt = { SVC_AUTH: 'jwt', SVC_JWT_ISSUER: 'https://id.example.com', SVC_JWT_AUDIENCE: 'svc' };
  assert.deepEqual(await warningsFor({ SVC_HOST: '0.0.0.0', ...jwt }), []);
  assert.deepEqual(await warningsFor({ SVC_HOST: '127.0.0.1' }), []);
  assert.deepEqual(await warningsFor({ SVC_HOST: 'localhost' }), []);
});

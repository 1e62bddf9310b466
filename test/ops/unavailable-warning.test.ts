import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { CredentialCheck } from '../../src/callers/caller.ts';
import { StorageUnavailableError } from '../../src/db/errors.ts';
import { type AppServer, startAppServer } from '../support/app-server.ts';

// docs/operations.md, Logs: a request answered 503 because the database is unreachable gets a `warn`
// line saying why and how many such requests were held back, at most one every 5 s. Both halves: none
// within the 5 s, and one again after them. The 503s come from a credential check whose own storage
// does not answer, so no database has to be taken away; the pipeline treats them as any other.
const WARNING = 'database unavailable or busy; answering 503';
const INTERVAL_MS = 5_000;
const unreachable: CredentialCheck = { identify: () => Promise.reject(new StorageUnavailableError('the credential store does not answer')) };

let server: AppServer;
before(async () => {
  server = await startAppServer({ SVC_AUTH: 'keys' }, { credentials: unreachable });
});
after(() => server.stop());

async function unavailable(): Promise<void> {
  const response = await fetch(`${server.url}/api/products`, { headers: { authorization: 'Bearer anything' } });
  assert.equal(response.status, 503);
  await response.arrayBuffer();
}

function warnings(): Record<string, unknown>[] {
  server.app.logger.flush();
  return server.logs.filter((line) => line['msg'] === WARNING);
}

test('one warning for an outage, none more within 5 s, then one again that counts those held back', { timeout: 30_000 }, async () => {
  await unavailable();
  // The warning was written before the answer was sent: its 5 s began no later than now.
  const firstAnswered = Date.now();
  assert.equal(warnings().length, 1);
  assert.equal(warnings()[0]?.['heldBack'], 0);
  assert.match(String(warnings()[0]?.['reason']), /credential store does not answer/);
  for (let i = 0; i < 3; i++) await unavailable();
  assert.equal(warnings().length, 1, 'within 5 s of the first: held back');
  await sleep(firstAnswered + INTERVAL_MS + 50 - Date.now());
  await unavailable();
  const lines = warnings();
  assert.equal(lines.length, 2, 'after 5 s: a warning again');
  assert.equal(lines[1]?.['heldBack'], 3);
});

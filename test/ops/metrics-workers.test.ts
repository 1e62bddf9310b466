import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { test } from 'node:test';
import { scrape } from '../support/scrape.ts';
import { migratedDatabaseFile } from '../support/server.ts';
import { spawnServe, urlOf } from './support.ts';

function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

const workerPids = (lines: Record<string, unknown>[]): number[] =>
  lines.filter((line) => line['msg'] === 'worker started').map((line) => Number(line['workerPid']));

const PING = { method: 'GET', route: '/api/ping', status: '200' };

test('SVC_WORKERS=2: the primary serves /metrics summed over both workers, never waits on a stuck one, and never loses a dead one', async (t) => {
  const { dir, dbPath } = migratedDatabaseFile();
  const serve = spawnServe({ SVC_DB_PATH: dbPath, SVC_WORKERS: '2', SVC_METRICS_PORT: '0' });
  t.after(() => {
    for (const pid of workerPids(serve.lines)) {
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    serve.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = await urlOf(serve);
  const metricsLine = await serve.waitForLine((line) => typeof line['metricsUrl'] === 'string');
  assert.equal(metricsLine['pid'], serve.child.pid, 'the primary serves the metrics');
  const metricsUrl = String(metricsLine['metricsUrl']);
  await serve.waitForLine(() => serve.lines.filter((line) => line['msg'] === 'worker listening').length === 2);

  // New connections, so the primary's round-robin hands them to both workers.
  for (let i = 0; i < 40; i++) assert.equal(await getOnNewConnection(`${url}/api/ping?n=${i}`), 200);
  await serve.waitForLine((line) => (line['req'] as { url?: string } | undefined)?.url === '/api/ping?n=39');
  const servers = new Set(serve.lines.filter((line) => line['msg'] === 'request completed').map((line) => line['pid']));
  assert.equal(servers.size, 2, 'both workers served requests');

  const both = await scrape(metricsUrl);
  assert.equal(both.value('http_requests_total', PING), 40);
  assert.equal(both.value('http_request_duration_seconds_count', { method: 'GET', route: '/api/ping' }), 40);
  assert.equal(both.value('metrics_scrape_workers', { state: 'answered' }), 2);
  assert.equal(both.value('metrics_scrape_workers', { state: 'timed_out' }), 0);
  assert.equal(both.value('http_requests_in_flight'), 0);
  // The primary's own start time: the earliest of the three processes.
  assert.ok(both.value('process_start_time_seconds') <= Date.now() / 1000);

  // A stopped worker cannot answer: the scrape still comes back, says so, and keeps its counts.
  const [stuck, other] = workerPids(serve.lines);
  assert.ok(stuck !== undefined && other !== undefined);
  process.kill(stuck, 'SIGSTOP');
  const partial = await scrape(metricsUrl);
  process.kill(stuck, 'SIGCONT');
  assert.equal(partial.value('metrics_scrape_workers', { state: 'timed_out' }), 1);
  assert.equal(partial.value('http_requests_total', PING), 40);

  // A worker that dies takes nothing with it: its last counts stay in the sum.
  const again = await scrape(metricsUrl);
  assert.equal(again.value('metrics_scrape_workers', { state: 'answered' }), 2);
  process.kill(stuck, 'SIGKILL');
  await serve.waitForLine(() => workerPids(serve.lines).length === 3);
  const replacement = workerPids(serve.lines)[2];
  await serve.waitForLine((line) => line['msg'] === 'worker listening' && line['workerPid'] === replacement);
  const afterDeath = await scrape(metricsUrl);
  assert.equal(afterDeath.value('metrics_scrape_workers', { state: 'answered' }), 2);
  assert.equal(afterDeath.value('http_requests_total', PING), 40);
  assert.ok(afterDeath.value('process_cpu_seconds_total') >= again.value('process_cpu_seconds_total'), 'summed CPU never goes back');

  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0);
});

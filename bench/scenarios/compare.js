// Side by side: the ceiling, Fastify (logger off / pino) and ours (logs off / on) on ping, list, create.
import { copyOf } from '../lib/database.js';
import { withServers } from '../lib/processes.js';
import { checkAnswer, REQUESTS } from '../lib/requests.js';
import { runRounds } from '../lib/rounds.js';
import { ceiling, fastify, METRICS_MODE, ours } from '../lib/servers.js';
import { fixed, markdownTable, ratio } from '../lib/stats.js';

export const ENDPOINTS = ['ping', 'list', 'create'];

function contenders(dir, template, endpoint) {
  const db = (name) => copyOf(template, dir, `${endpoint}-${name}`);
  return [
    ...(endpoint === 'ping' ? [ceiling(dir)] : []),
    fastify(dir, db('fastify')),
    fastify(dir, db('fastify-pino'), { pino: true }),
    ours(dir, db('ours')),
    ours(dir, db('ours-logs'), { logs: true }),
    // BENCH_METRICS=both: what counting and a metrics listener cost, in the same rounds.
    ...(METRICS_MODE === 'both' ? [ours(dir, db('ours-metrics'), { name: 'ours, metrics on', metrics: true })] : []),
    // For reference: what fsync-before-201 costs, against Fastify at the same durability.
    ...(endpoint === 'create' ? [ours(dir, db('ours-normal'), { name: 'ours, durability normal', extraEnv: { SVC_DB_DURABILITY: 'normal' } })] : []),
  ];
}

/** Runs every endpoint against fresh servers (so peak RSS is per endpoint); returns endpoint → name → summary. */
export async function runCompare({ dir, template1k, options }) {
  const results = {};
  for (const endpoint of ENDPOINTS.filter((e) => options.endpoints.has(e))) {
    options.log(`\n## ${endpoint}`);
    results[endpoint] = await withServers(contenders(dir, template1k, endpoint), async (servers) => {
      for (const server of servers) await checkAnswer(server, REQUESTS[endpoint]);
      return runRounds(servers, REQUESTS[endpoint], options);
    });
  }
  return results;
}

// Each of ours is compared with the Fastify that logs the same way.
const PEER = { ours: 'Fastify', 'ours, logs on': 'Fastify + pino', 'ours, durability normal': 'Fastify', 'ours, metrics on': 'Fastify' };

/** The markdown table of the comparison. */
export function compareTable(results) {
  const rows = [];
  for (const endpoint of Object.keys(results)) {
    const byName = results[endpoint];
    const top = byName.get('node:http ceiling');
    for (const [name, s] of byName) {
      const peer = byName.get(PEER[name]);
      rows.push([
        endpoint, name, fixed(s.rps), fixed(s.p50, 1), fixed(s.p99, 1), fixed(s.rssMb, 1), fixed(s.cpuUs),
        peer ? ratio(s.rps, peer.rps) : '', peer ? ratio(peer.cpuUs, s.cpuUs) : '', top && name !== top ? ratio(s.rps, top.rps) : '',
        s.failed > 0 ? `${s.failed} failed` : '',
      ]);
    }
  }
  const header = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'server CPU µs/req',
    'req/s × Fastify (same logging)', 'CPU/req: Fastify ÷ ours', 'req/s × ceiling', 'notes'];
  return markdownTable(header, rows);
}

/** The targets, each with the measured value and whether it was met. */
export function compareTargets(results) {
  const rps = (endpoint, name) => results[endpoint]?.get(name)?.rps ?? NaN;
  const targets = [
    ['ping, logs off: ours ≥ 1.05× Fastify', rps('ping', 'ours') / rps('ping', 'Fastify'), 1.05],
    ['ping, logs off: ours ≥ 0.85× ceiling', rps('ping', 'ours') / rps('ping', 'node:http ceiling'), 0.85],
    ['list, logs off: ours ≥ 1.5× Fastify', rps('list', 'ours') / rps('list', 'Fastify'), 1.5],
    ['create, logs off: ours (durable) ≥ 1.2× Fastify (NORMAL)', rps('create', 'ours') / rps('create', 'Fastify'), 1.2],
    ['ping, logs on: ours ≥ 1.25× Fastify + pino', rps('ping', 'ours, logs on') / rps('ping', 'Fastify + pino'), 1.25],
  ];
  const lines = targets.filter(([, value]) => Number.isFinite(value)).map(([what, value, goal]) => `- ${value >= goal ? 'met' : 'MISSED'}: ${what} (measured ${value.toFixed(2)}×)`);
  for (const endpoint of Object.keys(results)) {
    for (const [name, peer] of Object.entries(PEER).slice(0, 2)) {
      const mine = results[endpoint].get(name).rssMb;
      const theirs = results[endpoint].get(peer).rssMb;
      lines.push(`- ${mine <= theirs ? 'met' : 'MISSED'}: ${endpoint}, peak RSS of ${name} ≤ ${peer} (${mine.toFixed(1)} MB against ${theirs.toFixed(1)} MB)`);
    }
  }
  return lines.join('\n');
}

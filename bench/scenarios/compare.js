// Side by side: the ceiling, Fastify (logger off / pino) and ours (logs off / on) on ping, list, create;
// the create floor beside Fastify on create;
// ours again asking for the newest API version; with BENCH_BASELINE, ours as it was at that commit;
// with BENCH_METRICS=both, ours with metrics on.
import { copyOf } from '../lib/database.js';
import { withServers } from '../lib/processes.js';
import { checkAnswer, NEWEST_VERSION, requestFor } from '../lib/requests.js';
import { runRounds } from '../lib/rounds.js';
import { ceiling, createFloor, fastify, METRICS_MODE, ours } from '../lib/servers.js';

export const ENDPOINTS = ['ping', 'list', 'create'];
export const BASELINE = 'ours (baseline)';
export const BASELINE_PEER = 'Fastify (baseline)';
export const METRICS_ON = 'ours, metrics on';
export const NEWEST = 'ours, newest version';
export const FLOOR = 'create floor';

// The order is the order of turns in a round (lib/rounds.js): the pairs the report divides by a small
// margin sit side by side (baseline | ours | newest version), the baseline's Fastify beside it,
// Fastify one turn past the newest version, and each logging peer beside the other.
function contenders(dir, template, baseline, endpoint) {
  const db = (name, from = template) => copyOf(from, dir, `${endpoint}-${name}`);
  return [
    ...(endpoint === 'ping' ? [ceiling(dir)] : []),
    fastify(dir, db('fastify-pino'), { pino: true }),
    ours(dir, db('ours-logs'), { logs: true }),
    // BENCH_BASELINE: the same service at an earlier commit, on a database its own migrations made,
    // beside the Fastify peer of that commit (the same version's work), so "Fastify ÷ ours" is measured
    // before and after in the same rounds.
    ...(baseline
      ? [
          fastify(dir, db('fastify-baseline', baseline.template1k), { name: BASELINE_PEER, baseline: baseline.build }),
          ours(dir, db('baseline', baseline.template1k), { name: BASELINE, build: baseline.build }),
        ]
      : []),
    ours(dir, db('ours')),
    // The same build, its requests asking for the newest API version (issue 31: within 10% of the default).
    ours(dir, db('ours-newest'), { name: NEWEST, apiVersion: NEWEST_VERSION }),
    fastify(dir, db('fastify')),
    // The least a durable create with its event costs here (issue 32): Fastify ÷ it bounds what a node:http server reaches.
    ...(endpoint === 'create' ? [createFloor(dir, db('floor'))] : []),
    // BENCH_METRICS=both: what counting and a metrics listener cost, in the same rounds.
    ...(METRICS_MODE === 'both' ? [ours(dir, db('ours-metrics'), { name: METRICS_ON, metrics: true })] : []),
    // For reference: what fsync-before-201 costs, against Fastify at the same durability.
    ...(endpoint === 'create' ? [ours(dir, db('ours-normal'), { name: 'ours, durability normal', extraEnv: { SVC_DB_DURABILITY: 'normal' } })] : []),
  ];
}

/** Runs every endpoint against fresh servers (so peak RSS is per endpoint); returns endpoint → name → summary. */
export async function runCompare({ dir, template1k, baseline, options }) {
  const results = {};
  for (const endpoint of ENDPOINTS.filter((e) => options.endpoints.has(e))) {
    options.log(`\n## ${endpoint}`);
    results[endpoint] = await withServers(contenders(dir, template1k, baseline, endpoint), async (servers) => {
      for (const server of servers) await checkAnswer(server, requestFor(server, endpoint));
      return runRounds(servers, (server) => requestFor(server, endpoint), options);
    });
  }
  return results;
}

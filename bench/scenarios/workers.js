// Workers: SVC_WORKERS=2 (both CPUs) against 1 (one CPU), with the load generator on CPU 0 in both.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copyOf } from '../lib/database.js';
import { ROOT } from '../lib/paths.js';
import { withServers } from '../lib/processes.js';
import { checkAnswer, REQUESTS } from '../lib/requests.js';
import { runRounds } from '../lib/rounds.js';
import { ours } from '../lib/servers.js';
import { fixed, markdownTable, ratio } from '../lib/stats.js';
import { ENDPOINTS } from './compare.js';

const ONE = 'ours, 1 worker (CPU 1)';
const TWO = 'ours, 2 workers (CPUs 0-1)';

/** True once the service has worker processes (SVC_WORKERS, in src/workers/ or src/cluster.ts). */
export const workersAvailable = () => ['src/workers/primary.ts', 'src/cluster.ts'].some((file) => existsSync(join(ROOT, file)));

/** Runs ping, list and create on one worker and on two; null when the service has no workers yet. */
export async function runWorkers({ dir, template1k, options }) {
  if (!workersAvailable()) return null;
  const results = {};
  for (const endpoint of ENDPOINTS) {
    options.log(`\n## workers: ${endpoint}`);
    const specs = [
      ours(dir, copyOf(template1k, dir, `w1-${endpoint}`), { name: ONE }),
      ours(dir, copyOf(template1k, dir, `w2-${endpoint}`), { name: TWO, workers: 2, cpus: '0,1' }),
    ];
    results[endpoint] = await withServers(specs, async (servers) => {
      for (const server of servers) await checkAnswer(server, REQUESTS[endpoint]);
      return runRounds(servers, REQUESTS[endpoint], options);
    });
  }
  return results;
}

/** The markdown table of the workers scenario. */
export function workersTable(results) {
  if (results === null) return '_Not run: this build has no worker processes (SVC_WORKERS) yet._';
  const rows = ENDPOINTS.map((endpoint) => {
    const one = results[endpoint].get(ONE);
    const two = results[endpoint].get(TWO);
    return [endpoint, fixed(one.rps), fixed(two.rps), ratio(two.rps, one.rps), `${fixed(one.p50, 1)} / ${fixed(two.p50, 1)}`,
      `${fixed(one.p99, 1)} / ${fixed(two.p99, 1)}`, `${fixed(one.cpuUs)} / ${fixed(two.cpuUs)}`, `${fixed(one.rssMb, 1)} / ${fixed(two.rssMb, 1)}`];
  });
  return markdownTable(['endpoint', 'req/s 1 worker', 'req/s 2 workers', '2 / 1', 'p50 ms 1 / 2', 'p99 ms 1 / 2', 'server CPU µs/req 1 / 2', 'peak RSS MB 1 / 2 (all processes)'], rows);
}

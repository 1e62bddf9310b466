// PostgreSQL: ours against Fastify on one durable PostgreSQL server, the same client (`pg`, a pool of
// 10) and the same SQL; and two nodes of ours on one database (the load split over both) against one.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { copyOfDatabase, seededPostgres, startBenchPostgres } from '../lib/postgres.js';
import { withServers } from '../lib/processes.js';
import { checkAnswer, REQUESTS } from '../lib/requests.js';
import { group, runRounds } from '../lib/rounds.js';
import { currentBuild, fastify, ours } from '../lib/servers.js';
import { BASELINE, ENDPOINTS } from './compare.js';

export const TWO_NODES = 'ours, 2 nodes';
const POOL = { SVC_DB_POOL_SIZE: '10' };

/** The server's version, as `postgres --version` prints it (`15.14 (Debian 15.14-0+deb12u1)`). */
export const postgresVersion = (bindir) => execFileSync(join(bindir, 'postgres'), ['--version'], { encoding: 'utf8' }).trim().replace(/^postgres \(PostgreSQL\) /, '');

// As in the side by side, pairs divided by a small margin are neighbours in the order of turns.
async function contenders(dir, cluster, templates, endpoint) {
  const url = (name, template = templates.ours) => copyOfDatabase(cluster, template, `${name}_${endpoint}`);
  const onPostgres = (databaseUrl, name, build) => ours(dir, undefined, { name, ...(build ? { build } : {}), extraEnv: { SVC_DATABASE_URL: databaseUrl, ...POOL } });
  const shared = await url('nodes');
  return [
    fastify(dir, undefined, { databaseUrl: await url('fastify') }),
    ...(templates.baseline ? [onPostgres(await url('baseline', templates.baseline), BASELINE, templates.baselineBuild)] : []),
    onPostgres(await url('ours'), 'ours'),
    onPostgres(shared, `${TWO_NODES} (node 1)`),
    onPostgres(shared, `${TWO_NODES} (node 2)`),
  ];
}

/** Runs ping, list and create on PostgreSQL; returns endpoint → name → summary (with the database's CPU). */
export async function runPostgres({ dir, baseline, options }) {
  options.log('\n## postgres: starting a durable cluster (fsync on, synchronous_commit on)');
  const { cluster, cpu } = await startBenchPostgres();
  try {
    const templates = { ours: await seededPostgres(cluster, 'ours_template', currentBuild(), 1_000) };
    if (baseline?.build.hasPostgres) {
      templates.baseline = await seededPostgres(cluster, 'baseline_template', baseline.build, 1_000);
      templates.baselineBuild = baseline.build;
    }
    const results = {};
    for (const endpoint of ENDPOINTS.filter((e) => options.endpoints.has(e))) {
      options.log(`\n## postgres: ${endpoint}`);
      results[endpoint] = await withServers(await contenders(dir, cluster, templates, endpoint), async (servers) => {
        for (const server of servers) await checkAnswer(server, REQUESTS[endpoint]);
        const nodes = servers.filter((server) => server.name.startsWith(TWO_NODES));
        const measured = [...servers.filter((server) => !nodes.includes(server)), group(TWO_NODES, nodes)];
        return runRounds(measured, REQUESTS[endpoint], { ...options, dbCpu: cpu });
      });
    }
    return { results, baselineSkipped: baseline !== undefined && !baseline.build.hasPostgres };
  } finally {
    await cluster.stop();
  }
}

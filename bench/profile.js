// `node bench/profile.js ping|list|create [seconds]`: runs ours (TypeScript sources) under
// --cpu-prof while autocannon loads one endpoint, then prints where the CPU time went.
// PROFILE_LOGS=1 turns request logs on; PROFILE_PEER=fastify profiles the Fastify peer instead;
// PROFILE_POSTGRES=1 serves from a throwaway PostgreSQL like the benchmark's (1,000 products, pool of
// 10); SVC_* variables are passed to the server (SVC_DATABASE_URL: a database migrated and seeded by you).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededDatabase } from './lib/database.js';
import { sourcesBuild } from './lib/install.js';
import { measure } from './lib/load.js';
import { ROOT } from './lib/paths.js';
import { seededPostgres, startBenchPostgres } from './lib/postgres.js';
import { killAll, startServer, stopServer } from './lib/processes.js';
import { REQUESTS } from './lib/requests.js';
import { fastify, ours } from './lib/servers.js';
import { summarizeProfile } from './lib/profile-summary.js';

const endpoint = process.argv[2] ?? 'ping';
const seconds = Number(process.argv[3] ?? 10);
const request = REQUESTS[endpoint];
if (request === undefined) throw new Error(`usage: node bench/profile.js ${Object.keys(REQUESTS).join('|')} [seconds]`);

process.once('exit', killAll);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
const postgres = process.env.PROFILE_POSTGRES === '1' ? await startBenchPostgres() : undefined;
try {
  // SVC_* variables given to this script reach the server (e.g. SVC_DB_DURABILITY=normal).
  const extraEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('SVC_')));
  if (postgres) extraEnv.SVC_DATABASE_URL = postgres.cluster.urlFor(await seededPostgres(postgres.cluster, 'profile', sourcesBuild(), 1_000));
  const dbPath = extraEnv.SVC_DATABASE_URL === undefined ? seededDatabase(dir, 'profile', 1_000) : undefined;
  const spec = process.env.PROFILE_PEER === 'fastify'
    ? fastify(dir, dbPath, { pino: process.env.PROFILE_LOGS === '1', databaseUrl: extraEnv.SVC_DATABASE_URL })
    : ours(dir, dbPath, { logs: process.env.PROFILE_LOGS === '1', extraEnv });
  spec.args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...spec.args];
  const server = await startServer(spec);
  const result = await measure({ ...request, url: server.url + request.path, connections: 100, seconds });
  await stopServer(server);
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  console.log(`${spec.name} ${endpoint}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms under the profiler`);
  console.log(summarizeProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')), ROOT));
} finally {
  killAll();
  await postgres?.cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

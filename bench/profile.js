// `node bench/profile.js ping|list|create [seconds]`: runs ours (TypeScript sources) under
// --cpu-prof while autocannon loads one endpoint, then prints where the CPU time went: by function,
// by file, by line of the checkout's code (a native call counts on the line that makes it) and by
// inclusive time of the checkout's functions, as shares of the busy time and µs per request.
// PROFILE_LOGS=1 turns request logs on; PROFILE_PEER=fastify or handwritten profiles that peer
// (or reference: the reference server of issue 26; floor: the create floor, create only) instead; PROFILE_AUTH=keys|jwt sends the benchmark's credentials (seeded keys, tokens of a local
// issuer) to a server in that mode; PROFILE_OURS=installed profiles the compiled package (as the
// benchmark runs it) instead of the sources; PROFILE_POSTGRES=1 serves from a throwaway PostgreSQL
// like the benchmark's (1,000 products, pool of 10); SVC_* variables are passed to the server
// (SVC_DATABASE_URL: a database migrated and seeded by you). PROFILE_TOP: how many rows per part (30).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchCredentials, peerAuthEnv, seedKeysPostgres, seedKeysSqlite, serviceAuthEnv, withCredential } from './lib/credentials.js';
import { seededDatabase } from './lib/database.js';
import { installBuild, sourcesBuild } from './lib/install.js';
import { measure } from './lib/load.js';
import { ROOT } from './lib/paths.js';
import { seededPostgres, startBenchPostgres } from './lib/postgres.js';
import { killAll, startServer, stopServer } from './lib/processes.js';
import { REQUESTS } from './lib/requests.js';
import { createFloor, fastify, handwritten, ours, reference, useBuild } from './lib/servers.js';
import { serverProfileIn, summarizeProfile } from './lib/profile-summary.js';

const endpoint = process.argv[2] ?? 'ping';
const seconds = Number(process.argv[3] ?? 10);
const peer = process.env.PROFILE_PEER ?? '';
const mode = process.env.PROFILE_AUTH || 'off';
if (REQUESTS[endpoint] === undefined) throw new Error(`usage: node bench/profile.js ${Object.keys(REQUESTS).join('|')} [seconds]`);
if (!['', 'fastify', 'handwritten', 'reference', 'floor'].includes(peer)) throw new Error(`PROFILE_PEER must be fastify, handwritten, reference or floor, got ${peer}`);
if (!['off', 'keys', 'jwt'].includes(mode)) throw new Error(`PROFILE_AUTH must be off, keys or jwt, got ${mode}`);

process.once('exit', killAll);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
const build = useBuild(process.env.PROFILE_OURS === 'installed' ? installBuild(ROOT, dir) : sourcesBuild());
const postgres = process.env.PROFILE_POSTGRES === '1' ? await startBenchPostgres() : undefined;
const credentials = mode === 'off' ? undefined : await benchCredentials();

// The server to profile, on its database, in its auth mode.
async function specOf(extraEnv) {
  if (postgres) {
    extraEnv.SVC_DATABASE_URL = postgres.cluster.urlFor(await seededPostgres(postgres.cluster, 'profile', build, 1_000));
    if (credentials) await seedKeysPostgres(extraEnv.SVC_DATABASE_URL, credentials.keyRows);
  }
  const dbPath = extraEnv.SVC_DATABASE_URL === undefined ? seededDatabase(dir, 'profile', 1_000, build.migrate) : undefined;
  if (dbPath && credentials) seedKeysSqlite(dbPath, credentials.keyRows);
  const authEnv = credentials ? peerAuthEnv(credentials, mode) : {};
  if (peer === 'handwritten') return handwritten(dir, dbPath, { authEnv });
  if (peer === 'reference') return reference(dir, dbPath);
  if (peer === 'floor') return createFloor(dir, dbPath);
  if (peer === 'fastify') return fastify(dir, dbPath, { pino: process.env.PROFILE_LOGS === '1', databaseUrl: extraEnv.SVC_DATABASE_URL, authEnv });
  return ours(dir, dbPath, { logs: process.env.PROFILE_LOGS === '1', extraEnv: { ...extraEnv, ...(credentials ? serviceAuthEnv(credentials, mode) : {}) } });
}

try {
  // SVC_* variables given to this script reach the server (e.g. SVC_DB_DURABILITY=normal).
  const spec = await specOf(Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('SVC_'))));
  spec.args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...spec.args];
  const request = credentials ? withCredential(REQUESTS[endpoint], credentials, mode) : REQUESTS[endpoint];
  const server = await startServer(spec);
  const result = await measure({ ...request, url: server.url + request.path, connections: 100, seconds });
  await stopServer(server);
  console.log(`${spec.name}${mode === 'off' ? '' : ` (${mode})`} ${endpoint}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms under the profiler${result.failed ? `, ${result.failed} FAILED` : ''}`);
  // The installed package's own files count as the checkout's code.
  const roots = [ROOT, join(dirname(build.serve), '..', '/')];
  console.log(summarizeProfile(serverProfileIn(dir), roots, { requests: result.requests, top: Number(process.env.PROFILE_TOP ?? 30) }));
} finally {
  killAll();
  await credentials?.close();
  await postgres?.cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

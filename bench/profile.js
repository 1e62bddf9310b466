// `node bench/profile.js ping|list|create [seconds]`: runs ours (TypeScript sources) under
// --cpu-prof while autocannon loads one endpoint, then prints where the CPU time went.
// PROFILE_LOGS=1 turns request logs on; SVC_* variables are passed to the server.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededDatabase } from './lib/database.js';
import { measure } from './lib/load.js';
import { ROOT } from './lib/paths.js';
import { killAll, startServer, stopServer } from './lib/processes.js';
import { REQUESTS } from './lib/requests.js';
import { ours } from './lib/servers.js';
import { summarizeProfile } from './lib/profile-summary.js';

const endpoint = process.argv[2] ?? 'ping';
const seconds = Number(process.argv[3] ?? 10);
const request = REQUESTS[endpoint];
if (request === undefined) throw new Error(`usage: node bench/profile.js ${Object.keys(REQUESTS).join('|')} [seconds]`);

process.once('exit', killAll);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
try {
  // SVC_* variables given to this script reach the server (e.g. SVC_DB_DURABILITY=normal).
  const extraEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('SVC_')));
  const spec = ours(dir, seededDatabase(dir, 'profile', 1_000), { logs: process.env.PROFILE_LOGS === '1', extraEnv });
  spec.args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...spec.args];
  const server = await startServer(spec);
  const result = await measure({ ...request, url: server.url + request.path, connections: 100, seconds });
  await stopServer(server);
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  console.log(`${endpoint}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms under the profiler`);
  console.log(summarizeProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')), ROOT));
} finally {
  killAll();
  rmSync(dir, { recursive: true, force: true });
}

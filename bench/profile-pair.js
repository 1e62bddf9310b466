// `node bench/profile-pair.js list|ping [seconds]`: ours (the installed package) and the reference server
// of issue 26 under --cpu-prof at the same time, both on CPU 1, each loaded by its own autocannon of 50
// connections in the same run, so the load on the machine weighs on both alike; then both profiles'
// summaries (lib/profile-summary.js), µs per request comparable side by side. PROFILE_AUTH=keys sends
// the benchmark's API keys to ours (the reference has no credentials). BENCH_BASELINE=<git ref> puts
// the service as it was at that commit (lib/baseline.js) in the reference's place, on a database its own
// migrate made: `BENCH_BASELINE=b433c7c node bench/profile-pair.js create` splits what a create costs now
// against then.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchCredentials, seedKeysSqlite, serviceAuthEnv, withCredential } from './lib/credentials.js';
import { copyOf, seededDatabase } from './lib/database.js';
import { installBuild } from './lib/install.js';
import { measure } from './lib/load.js';
import { baselineBuild } from './lib/baseline.js';
import { ROOT } from './lib/paths.js';
import { killAll, startServer, stopServer } from './lib/processes.js';
import { REQUESTS } from './lib/requests.js';
import { ours, reference, useBuild } from './lib/servers.js';
import { serverProfileIn, summarizeProfile } from './lib/profile-summary.js';

const endpoint = process.argv[2] ?? 'list';
const seconds = Number(process.argv[3] ?? 10);
const mode = process.env.PROFILE_AUTH || 'off';
const against = process.env.BENCH_BASELINE || undefined;
process.once('exit', killAll);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-profile-pair-'));
const build = useBuild(installBuild(ROOT, dir));
const credentials = mode === 'off' ? undefined : await benchCredentials();
// The service at `ref`, on a database of its own schema, named after its commit.
function baselineOf(ref) {
  const baseline = baselineBuild(ref, dir);
  const database = seededDatabase(dir, 'baseline', 1_000, baseline.migrate);
  return ours(dir, database, { name: `baseline ${baseline.commit}`, build: baseline });
}

try {
  const template = seededDatabase(dir, 'pair', 1_000, build.migrate);
  if (credentials) seedKeysSqlite(template, credentials.keyRows);
  const profiled = (spec, name) => {
    const folder = join(dir, name);
    mkdirSync(folder);
    return { ...spec, args: ['--cpu-prof', `--cpu-prof-dir=${folder}`, ...spec.args], folder };
  };
  const specs = [
    profiled(ours(dir, copyOf(template, dir, 'ours'), { extraEnv: credentials ? serviceAuthEnv(credentials, mode) : {} }), 'ours'),
    against === undefined
      ? profiled(reference(dir, copyOf(template, dir, 'reference')), 'reference')
      : profiled(baselineOf(against), 'baseline-profile'),
  ];
  const servers = [];
  for (const spec of specs) servers.push(Object.assign(await startServer(spec), { folder: spec.folder }));
  const requestOf = (server) => (server.name === 'ours' && credentials ? withCredential(REQUESTS[endpoint], credentials, mode) : REQUESTS[endpoint]);
  const results = await Promise.all(servers.map((server) => measure({ ...requestOf(server), url: server.url + REQUESTS[endpoint].path, connections: 50, seconds })));
  for (const server of servers) await stopServer(server);
  const roots = [ROOT, join(dirname(build.serve), '..', '/')];
  servers.forEach((server, i) => {
    console.log(`\n# ${server.name}${server.name === 'ours' && mode !== 'off' ? ` (${mode})` : ''} ${endpoint}: ${Math.round(results[i].rps)} req/s under the profiler${results[i].failed ? `, ${results[i].failed} FAILED` : ''}`);
    console.log(summarizeProfile(serverProfileIn(server.folder), roots, { requests: results[i].requests, top: Number(process.env.PROFILE_TOP ?? 30) }));
  });
} finally {
  killAll();
  await credentials?.close();
  rmSync(dir, { recursive: true, force: true });
}

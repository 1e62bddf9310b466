// What each contender is: how to start it, on which CPU, with which database and logging.
import { join } from 'node:path';
import { BENCH, ROOT } from './paths.js';

export const SERVER_CPU = '1';

// BENCH_METRICS: `off` (default); `on`: every server of ours counts and serves /metrics on a port of
// its own (SVC_METRICS_PORT=0), under the same names, so the targets still apply; `both`: the side by
// side also runs "ours, metrics on" beside "ours".
export const METRICS_MODE = process.env.BENCH_METRICS || 'off';
if (!['off', 'on', 'both'].includes(METRICS_MODE)) throw new Error(`BENCH_METRICS must be off, on or both, got ${METRICS_MODE}`);

// bin/serve.js of the checkout (TypeScript sources) until run.js points at an installed copy.
let serveEntry = join(ROOT, 'bin/serve.js');

/** Which bin/serve.js starts our servers. */
export function useServeEntry(path) {
  serveEntry = path;
}

// Our environment minus anything that could change a server's behaviour.
function cleanEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('SVC_') && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return env;
}

/** Bare node:http with a constant body. */
export function ceiling(dir) {
  return { name: 'node:http ceiling', args: [join(BENCH, 'peers/ceiling.js')], env: cleanEnv(), cpus: SERVER_CPU, cwd: dir };
}

/** Fastify 5 on node:sqlite (WAL, synchronous=NORMAL), logger off or pino at info. */
export function fastify(dir, dbPath, { pino = false } = {}) {
  return {
    name: pino ? 'Fastify + pino' : 'Fastify',
    args: [join(BENCH, 'peers/fastify.js')],
    env: { ...cleanEnv(), DB_PATH: dbPath, ...(pino ? { LOGGER: 'pino' } : {}) },
    cpus: SERVER_CPU,
    cwd: dir,
  };
}

/** The service itself, as an operator runs it: bin/serve.js at its default durability. */
export function ours(dir, dbPath, { logs = false, workers = 1, cpus = SERVER_CPU, name, metrics = METRICS_MODE === 'on', extraEnv = {} } = {}) {
  return {
    name: name ?? (logs ? 'ours, logs on' : 'ours'),
    args: [serveEntry],
    env: {
      ...cleanEnv(),
      SVC_DB_PATH: dbPath,
      SVC_LOG_LEVEL: logs ? 'info' : 'silent',
      SVC_WORKERS: String(workers),
      ...(metrics ? { SVC_METRICS_PORT: '0' } : {}),
      ...extraEnv,
    },
    cpus,
    cwd: dir,
  };
}

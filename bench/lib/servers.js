// What each contender is: how to start it, on which CPU, with which database and logging.
import { join } from 'node:path';
import { sourcesBuild } from './install.js';
import { BENCH } from './paths.js';

export const SERVER_CPU = '1';

// BENCH_METRICS: `off` (default); `on`: every server of ours counts and serves /metrics on a port of
// its own (SVC_METRICS_PORT=0), under the same names, so the targets still apply; `both`: the side by
// side also runs "ours, metrics on" beside "ours".
export const METRICS_MODE = process.env.BENCH_METRICS || 'off';
if (!['off', 'on', 'both'].includes(METRICS_MODE)) throw new Error(`BENCH_METRICS must be off, on or both, got ${METRICS_MODE}`);

// BENCH_PEER_ROWS: how the SQLite Fastify peer reads rows: `objects` (default, node:sqlite's and a
// typical app's way) or `arrays` (ours' way). The PostgreSQL peer always reads arrays, as ours does.
const PEER_ROWS = process.env.BENCH_PEER_ROWS || 'objects';
const OURS_NODE_ARGS = (process.env.BENCH_OURS_NODE_ARGS ?? '').split(' ').filter(Boolean);
if (!['objects', 'arrays'].includes(PEER_ROWS)) throw new Error(`BENCH_PEER_ROWS must be objects or arrays, got ${PEER_ROWS}`);

// BENCH_HANDWRITTEN_JSON: how the hand-written peer serializes a list page: `string` (default, built
// as one string by hand, each string escaped by JSON.stringify) or `stringify` (plain objects and one
// JSON.stringify, which V8's fast path can make cheaper on Node 24).
export const HANDWRITTEN_JSON = process.env.BENCH_HANDWRITTEN_JSON || 'string';
if (!['string', 'stringify'].includes(HANDWRITTEN_JSON)) throw new Error(`BENCH_HANDWRITTEN_JSON must be string or stringify, got ${HANDWRITTEN_JSON}`);

// BENCH_PG_PEER_CREATE: how the PostgreSQL Fastify peer writes a create: `autocommit` (default, one
// INSERT … RETURNING, what a Fastify user writes) or `transaction` (BEGIN, INSERT, COMMIT).
const PG_PEER_CREATE = process.env.BENCH_PG_PEER_CREATE || 'autocommit';
if (!['autocommit', 'transaction'].includes(PG_PEER_CREATE)) throw new Error(`BENCH_PG_PEER_CREATE must be autocommit or transaction, got ${PG_PEER_CREATE}`);

// The checkout's sources until run.js points at an installed build (lib/install.js).
let oursBuild = sourcesBuild();

/** Which build starts "ours" from now on; returns it. */
export function useBuild(build) {
  oursBuild = build;
  return build;
}

/** The build "ours" runs. */
export const currentBuild = () => oursBuild;

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

/**
 * The create floor (peers/floor-create.js): a create's durable row and event, by ours' statements in a
 * group commit, with none of the service's rules: about the least a node:http server making that write spends.
 */
export function createFloor(dir, dbPath) {
  return { name: 'create floor', args: [join(BENCH, 'peers/floor-create.js')], env: { ...cleanEnv(), DB_PATH: dbPath }, cpus: SERVER_CPU, cwd: dir, schemaVersion: oursBuild.schemaVersion };
}

/**
 * The hand-written peer (node:http + node:sqlite, peers/handwritten.js) on `dbPath`, at the service's
 * durability (`full` unless given), with `authEnv` (lib/credentials.js, peerAuthEnv) for its credential work.
 */
export function handwritten(dir, dbPath, { name = 'hand-written', durability = 'full', authEnv = {} } = {}) {
  return {
    name,
    args: [join(BENCH, 'peers/handwritten.js')],
    env: { ...cleanEnv(), DB_PATH: dbPath, DURABILITY: durability, JSON: HANDWRITTEN_JSON, EXPECTED_VERSION: String(oursBuild.schemaVersion), ...authEnv },
    cpus: SERVER_CPU,
    cwd: dir,
    schemaVersion: oursBuild.schemaVersion,
  };
}

/**
 * The reference server of issue 26 (peers/reference/raw-fast.js, the hand-written `node:http` +
 * `node:sqlite` server the list is held to): ping, list and a create on `dbPath`; no credentials, no
 * cursor, no Location or ETag on a create, so it runs on ping and list only.
 */
export function reference(dir, dbPath, { name = 'reference' } = {}) {
  return { name, args: ['--import', join(BENCH, 'peers/reference/exit-on-signal.js'), join(BENCH, 'peers/reference/raw-fast.js')], env: { ...cleanEnv(), DB: dbPath }, cpus: SERVER_CPU, cwd: dir, schemaVersion: 2 };
}

/**
 * Fastify 5 doing the work of our current build: on node:sqlite (WAL, synchronous=NORMAL) at `dbPath`,
 * or on PostgreSQL with `databaseUrl`; logger off or pino at info; `authEnv` for its credential work.
 */
export function fastify(dir, dbPath, { pino = false, databaseUrl, name, baseline, authEnv = {} } = {}) {
  const storage = databaseUrl === undefined
    ? { args: [baseline?.peer ?? join(BENCH, 'peers/fastify.js')], env: { DB_PATH: dbPath, ROWS: PEER_ROWS } }
    : { args: [join(BENCH, 'peers/fastify-pg.js')], env: { DATABASE_URL: databaseUrl, CREATE: PG_PEER_CREATE } };
  // With `baseline`, the peer of that commit, doing the work of that version's schema.
  const schemaVersion = (baseline ?? oursBuild).schemaVersion;
  return {
    name: name ?? (pino ? 'Fastify + pino' : 'Fastify'),
    args: storage.args,
    env: { ...cleanEnv(), ...storage.env, EXPECTED_VERSION: String(schemaVersion), ...(pino ? { LOGGER: 'pino' } : {}), ...authEnv },
    cpus: SERVER_CPU,
    cwd: dir,
    schemaVersion,
  };
}

/**
 * The service itself, as an operator runs it: bin/serve.js of `build` at its default durability.
 * With `apiVersion`, its requests ask for that API version (lib/requests.js, requestFor).
 */
export function ours(dir, dbPath, { logs = false, workers = 1, cpus = SERVER_CPU, name, metrics = METRICS_MODE === 'on', build = oursBuild, extraEnv = {}, apiVersion } = {}) {
  return {
    name: name ?? (logs ? 'ours, logs on' : 'ours'),
    // BENCH_OURS_NODE_ARGS: Node flags for ours, before bin/serve.js (which keeps a --max-semi-space-size
    // given there: `--max-semi-space-size=64` runs it with the young generation b433c7c had).
    args: [...OURS_NODE_ARGS, build.serve],
    env: {
      ...cleanEnv(),
      ...(dbPath === undefined ? {} : { SVC_DB_PATH: dbPath }),
      SVC_LOG_LEVEL: logs ? 'info' : 'silent',
      SVC_WORKERS: String(workers),
      ...(metrics ? { SVC_METRICS_PORT: '0' } : {}),
      ...extraEnv,
    },
    cpus,
    cwd: dir,
    schemaVersion: build.schemaVersion,
    apiVersion,
  };
}

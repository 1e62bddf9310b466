// Peers (issue 19): ours against the hand-written peer and Fastify 5 on ping, list 50 and create,
// each with auth off, API keys and access tokens (BENCH_AUTH), on SQLite and on PostgreSQL
// (BENCH_ENGINES; the hand-written peer is SQLite only). Every contender of an endpoint and engine
// runs in the same rounds, so every row can be divided by both peers of its auth mode, paired.
// A build of ours that does not serve a mode (it fails to start, or answers without a credential)
// is skipped in that mode with a note; the peers' rows still run.
import { findPostgres } from '../../test/support/postgres-binaries.ts';
import { checkCreateRules, checkCredentials, checkPaging } from '../lib/peer-checks.js';
import { AUTH_LABEL, peerAuthEnv, seedKeysPostgres, serviceAuthEnv, withCredential } from '../lib/credentials.js';
import { copyOf } from '../lib/database.js';
import { copyOfDatabase, seededPostgres, startBenchPostgres } from '../lib/postgres.js';
import { startServer, stopServer } from '../lib/processes.js';
import { checkAnswer, NEWEST_VERSION, requestFor } from '../lib/requests.js';
import { runRounds } from '../lib/rounds.js';
import { currentBuild, fastify, handwritten, ours, reference } from '../lib/servers.js';
import { ENDPOINTS, NEWEST } from './compare.js';

export const HANDWRITTEN = 'hand-written';
export const FASTIFY = 'Fastify';
export const OURS = 'ours';
export const BASELINE = 'ours (baseline)';
// The reference server of issue 26 (no credentials: one row, divided into ours of every mode).
export const REFERENCE = 'reference';

// BENCH_PEERS: which peers run beside ours (default reference,handwritten,fastify): reference (ping
// and list on SQLite), handwritten, fastify; and newest: ours asking for the newest API version, with
// auth off, in the turn after ours (so Fastify's turn is one further from ours). Fewer peers make
// shorter rounds when only some ratios are wanted.
const PEER_KINDS = ['reference', 'handwritten', 'fastify', 'newest'];
export const PEERS = new Set((process.env.BENCH_PEERS || 'reference,handwritten,fastify').split(',').map((s) => s.trim()));
for (const kind of PEERS) if (!PEER_KINDS.includes(kind)) throw new Error(`BENCH_PEERS takes ${PEER_KINDS.join(', ')}; got ${kind}`);
const referenceRuns = (endpoint) => PEERS.has('reference') && endpoint !== 'create';
// The newest API version against the default is a property of the build, not of a credential: one mode.
const newestRuns = (mode) => PEERS.has('newest') && mode === 'off';

/** The name of a contender in a mode: `ours, keys`. */
export const nameOf = (who, mode) => `${who}, ${mode}`;

// The order of turns in a round: per mode, the hand-written peer, (the baseline,) ours, (ours in the
// newest version,) Fastify, so the baseline is beside ours and ours one turn from each peer (two from
// Fastify where the newest version runs).

// A baseline of another schema (one from before API keys) knows no credentials, so it would serve a
// keys or tokens mode openly, doing less work: it runs with auth off only.
const baselineRuns = (baseline, mode) => baseline !== undefined && (baseline.sameSchema || mode === 'off');
function sqliteSpecs({ dir, template1k, baseline }, endpoint, mode, credentials) {
  const db = (who, template = template1k) => copyOf(template, dir, `peers-${endpoint}-${mode}-${who}`);
  const peerEnv = peerAuthEnv(credentials, mode);
  const oursEnv = serviceAuthEnv(credentials, mode);
  return [
    ...(PEERS.has('handwritten') ? [{ ...handwritten(dir, db('handwritten'), { name: nameOf(HANDWRITTEN, mode), authEnv: peerEnv }), mode, exactRules: true }] : []),
    ...(baselineRuns(baseline, mode) ? [{ ...ours(dir, db('baseline', baseline.template1k), { name: nameOf(BASELINE, mode), build: baseline.build, extraEnv: oursEnv }), mode, optional: true, exactRules: true }] : []),
    { ...ours(dir, db('ours'), { name: nameOf(OURS, mode), extraEnv: oursEnv }), mode, optional: true, exactRules: true },
    ...(newestRuns(mode) ? [{ ...ours(dir, db('newest'), { name: nameOf(NEWEST, mode), apiVersion: NEWEST_VERSION, extraEnv: oursEnv }), mode, optional: true }] : []),
    ...(PEERS.has('fastify') ? [{ ...fastify(dir, db('fastify'), { name: nameOf(FASTIFY, mode), authEnv: peerEnv }), mode }] : []),
  ];
}

async function postgresSpecs({ dir, baseline }, pg, endpoint, mode, credentials) {
  const url = (who, template = pg.templates.ours) => copyOfDatabase(pg.cluster, template, `peers_${endpoint}_${mode}_${who}`);
  const oursEnv = (databaseUrl) => ({ SVC_DATABASE_URL: databaseUrl, SVC_DB_POOL_SIZE: '10', ...serviceAuthEnv(credentials, mode) });
  return [
    ...(pg.templates.baseline && baselineRuns(baseline, mode) ? [{ ...ours(dir, undefined, { name: nameOf(BASELINE, mode), build: baseline.build, extraEnv: oursEnv(await url('baseline', pg.templates.baseline)) }), mode, optional: true, exactRules: true }] : []),
    { ...ours(dir, undefined, { name: nameOf(OURS, mode), extraEnv: oursEnv(await url('ours')) }), mode, optional: true, exactRules: true },
    ...(newestRuns(mode) ? [{ ...ours(dir, undefined, { name: nameOf(NEWEST, mode), apiVersion: NEWEST_VERSION, extraEnv: oursEnv(await url('newest')) }), mode, optional: true }] : []),
    { ...fastify(dir, undefined, { name: nameOf(FASTIFY, mode), databaseUrl: await url('fastify'), authEnv: peerAuthEnv(credentials, mode) }), mode },
  ];
}

// Starts a contender and checks its answers; an optional one (ours) that cannot serve its mode is
// stopped and reported instead of failing the run.
async function startChecked(spec, endpoint, credentials, skipped) {
  let server;
  try {
    server = await startServer(spec);
  } catch (error) {
    if (!spec.optional) throw error;
    skipped.push(`${spec.name}: not run, the build did not start with ${AUTH_LABEL[spec.mode]} (${firstLine(error.message)})`);
    return null;
  }
  Object.assign(server, { mode: spec.mode, exactRules: spec.exactRules === true });
  try {
    // The reference server serves no credentials and no cursor: its answer is checked, nothing more.
    if (spec.name === REFERENCE) {
      await checkAnswer(server, requestFor(server, endpoint));
      return server;
    }
    if (!(await checkCredentials(server, spec.mode, credentials))) {
      if (!spec.optional) throw new Error(`${spec.name} answered a request without a credential`);
      skipped.push(`${spec.name}: not run, this build does not enforce SVC_AUTH=${spec.mode} (it answered a request without a credential)`);
      await stopServer(server);
      return null;
    }
    const request = withCredential(requestFor(server, endpoint), credentials, spec.mode);
    await checkAnswer(server, request);
    await checkPaging(server, request.headers?.authorization);
    if (server.exactRules) await checkCreateRules(server, request.headers?.authorization);
    return server;
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

const firstLine = (text) => text.split('\n').find((line) => /error|refus|invalid|no credential/i.test(line))?.trim().slice(0, 200) ?? text.split('\n')[0].slice(0, 200);

async function measureEndpoint(specs, endpoint, credentials, options, skipped) {
  const servers = [];
  try {
    for (const spec of specs) {
      const server = await startChecked(spec, endpoint, credentials, skipped);
      if (server !== null) servers.push(server);
    }
    return await runRounds(servers, (server) => withCredential(requestFor(server, endpoint), credentials, server.mode), options);
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

/** How many turns the scenario will run, for the estimate printed before it starts. */
export function plannedTurns(options, baseline) {
  const oneModeTurns = options.auth.filter((mode) => baselineRuns(baseline, mode)).length + options.auth.filter(newestRuns).length;
  const sqlitePeers = 1 + (PEERS.has('handwritten') ? 1 : 0) + (PEERS.has('fastify') ? 1 : 0);
  const perEngine = (engine, endpoint) => (engine === 'sqlite' ? sqlitePeers + (referenceRuns(endpoint) ? 1 / options.auth.length : 0) : 2) * options.auth.length + oneModeTurns;
  const endpoints = ENDPOINTS.filter((e) => options.endpoints.has(e));
  return [...options.engines].reduce((sum, engine) => sum + endpoints.reduce((n, endpoint) => n + perEngine(engine, endpoint), 0), 0);
}

/** Runs every endpoint × engine; returns { results: engine → endpoint → name → summary, skipped, jwksFetches }. */
export async function runPeers(context) {
  const { options, credentials } = context;
  const endpoints = ENDPOINTS.filter((e) => options.endpoints.has(e));
  const results = {};
  const skipped = [];
  // The reference server runs once per endpoint, first, with auth off (it has no other mode).
  const referenceSpec = (endpoint) => ({ ...reference(context.dir, copyOf(context.template1k, context.dir, `peers-${endpoint}-reference`)), mode: 'off' });
  const specsOf = (endpoint) => [...(referenceRuns(endpoint) ? [referenceSpec(endpoint)] : []), ...options.auth.flatMap((mode) => sqliteSpecs(context, endpoint, mode, credentials))];
  if (options.engines.has('sqlite')) {
    results.sqlite = {};
    for (const endpoint of endpoints) {
      options.log(`\n## peers, SQLite: ${endpoint}`);
      results.sqlite[endpoint] = await measureEndpoint(specsOf(endpoint), endpoint, credentials, options, skipped);
    }
  }
  const lookup = options.engines.has('postgres') ? findPostgres() : null;
  if (lookup?.found === false) skipped.push(`the PostgreSQL rows: PostgreSQL is missing (${lookup.reason})`);
  else if (lookup !== null) results.postgres = await runOnPostgres(context, endpoints, skipped);
  return { results, skipped };
}

async function runOnPostgres(context, endpoints, skipped) {
  const { options, credentials, baseline } = context;
  options.log('\n## peers, PostgreSQL: starting a durable cluster (fsync on, synchronous_commit on)');
  const { cluster, cpu } = await startBenchPostgres();
  try {
    const templates = { ours: await seededPostgres(cluster, 'peers_template', currentBuild(), 1_000) };
    await seedKeysPostgres(cluster.urlFor(templates.ours), credentials.keyRows);
    if (baseline?.build.hasPostgres) {
      templates.baseline = await seededPostgres(cluster, 'peers_baseline_template', baseline.build, 1_000);
      if (baseline.sameSchema) await seedKeysPostgres(cluster.urlFor(templates.baseline), credentials.keyRows);
    }
    const pg = { cluster, templates };
    const results = {};
    for (const endpoint of endpoints) {
      options.log(`\n## peers, PostgreSQL: ${endpoint}`);
      const specs = [];
      for (const mode of options.auth) specs.push(...(await postgresSpecs(context, pg, endpoint, mode, credentials)));
      results[endpoint] = await measureEndpoint(specs, endpoint, credentials, { ...options, dbCpu: cpu }, skipped);
    }
    return results;
  } finally {
    await cluster.stop();
  }
}

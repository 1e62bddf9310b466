// `npm run bench`: the service against Fastify 5 and a node:http ceiling, then scale, workers and PostgreSQL.
// Env: BENCH_QUICK=1 (smoke run), BENCH_ROUNDS, BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS,
// BENCH_SCALE_ROWS, BENCH_ONLY=compare,scale,workers,postgres, BENCH_ENDPOINTS=ping,list,create,
// BENCH_OURS=installed (default: the compiled package, as operators run it) or sources (the checkout's .ts),
// BENCH_BASELINE=<git ref> ("ours (baseline)", built from that commit; unset: lib/baseline.js's
// DEFAULT_BASELINE; `none`: no baseline), BENCH_METRICS=off|on|both,
// BENCH_OURS_NODE_ARGS (Node flags for ours, as `--max-semi-space-size=64`),
// and for the peers scenario (issue 19): BENCH_AUTH=off,keys,jwt, BENCH_ENGINES=sqlite,postgres, BENCH_JWT_ALG.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgres } from '../test/support/postgres-binaries.ts';
import { baselineBuild, baselineRef } from './lib/baseline.js';
import { AUTH_MODES, benchCredentials, seedKeysSqlite } from './lib/credentials.js';
import { seededDatabase } from './lib/database.js';
import { loadMark, loadSince, machineReport, sampleLoad } from './lib/machine.js';
import { installBuild, sourcesBuild } from './lib/install.js';
import { BENCH, ROOT } from './lib/paths.js';
import { killAll } from './lib/processes.js';
import { METRICS_MODE, useBuild } from './lib/servers.js';
import { NEWEST, runCompare } from './scenarios/compare.js';
import { nameOf, OURS, plannedTurns, runPeers } from './scenarios/peers.js';
import { contendersTable, cpuTable, credentialsTable, peersBaselineTable, targetsTable } from './scenarios/peers-report.js';
import { baselineTable, compareTable, compareTargets, createTargets, metricsTable, newestTable } from './scenarios/compare-report.js';
import { postgresVersion, runPostgres } from './scenarios/postgres.js';
import { postgresTable, postgresTargets } from './scenarios/postgres-report.js';
import { runScale, scaleTable, scaleTargets } from './scenarios/scale.js';
import { runWorkers, workersTable } from './scenarios/workers.js';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`node ${process.version} has no node:sqlite; run \`npm run bench\` so the pinned Node is used\n`);
  process.exit(1);
}

function numberFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

function listFromEnv(name, fallback, allowed) {
  const values = (process.env[name] || fallback).split(',').map((s) => s.trim()).filter(Boolean);
  for (const value of values) if (!allowed.includes(value)) throw new Error(`${name} takes ${allowed.join(', ')}; got ${value}`);
  return values;
}

const quick = process.env.BENCH_QUICK === '1';
const options = {
  quick,
  rounds: numberFromEnv('BENCH_ROUNDS', quick ? 1 : 5),
  seconds: numberFromEnv('BENCH_SECONDS', quick ? 2 : 10),
  warmupSeconds: numberFromEnv('BENCH_WARMUP_SECONDS', quick ? 1 : 3),
  connections: numberFromEnv('BENCH_CONNECTIONS', 100),
  scaleRows: numberFromEnv('BENCH_SCALE_ROWS', 1_000_000),
  ours: process.env.BENCH_OURS === 'sources' ? 'sources' : 'installed',
  endpoints: new Set((process.env.BENCH_ENDPOINTS ?? 'ping,list,create').split(',').map((s) => s.trim())),
  only: new Set((process.env.BENCH_ONLY ?? 'compare,scale,workers,postgres').split(',').map((s) => s.trim())),
  baseline: baselineRef(process.env.BENCH_BASELINE),
  // The peers scenario: which auth modes (in this order in every round) and which engines.
  auth: AUTH_MODES.filter((mode) => listFromEnv('BENCH_AUTH', AUTH_MODES.join(','), AUTH_MODES).includes(mode)),
  engines: new Set(listFromEnv('BENCH_ENGINES', 'sqlite,postgres', ['sqlite', 'postgres'])),
  log: (line) => process.stdout.write(`${line}\n`),
};

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));

// Servers are killed and the scratch folder removed whatever ends this process.
const cleanUp = () => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
};
process.once('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

async function peersSection(context) {
  const { results, skipped } = await runPeers(context);
  const titles = { sqlite: 'SQLite (1,000 products)', postgres: 'PostgreSQL (1,000 products, one durable server, pg with a pool of 10 on both sides)' };
  const parts = [];
  for (const [engine, byEndpoint] of Object.entries(results)) {
    parts.push(`### ${titles[engine]}`, cpuTable(byEndpoint), contendersTable(byEndpoint), `Targets (issues 19 and 26):\n\n${targetsTable(engine, byEndpoint)}`,
      `What credentials cost:\n\n${credentialsTable(byEndpoint)}`);
    if (Object.values(byEndpoint).some((byName) => byName.has(nameOf(NEWEST, 'off')))) {
      parts.push(`The newest API version against the default (ours, auth off):\n\n${newestTable(byEndpoint, nameOf(OURS, 'off'), nameOf(NEWEST, 'off'))}`);
    }
    if (context.baseline) {
      const only = context.baseline.sameSchema ? '' : ` (schema ${context.baseline.build.schemaVersion}, not this build's: auth off only)`;
      parts.push(`Before and after: ours against ${context.baseline.build.ref} (${context.baseline.build.commit})${only}\n\n${peersBaselineTable(byEndpoint, context.baseline.build.ref)}`);
    }
  }
  const notes = skipped.length === 0 ? '' : `\n\nNot run:\n${[...new Set(skipped)].map((line) => `- ${line}`).join('\n')}`;
  const setup = `Auth modes: ${context.options.auth.join(', ')}; keys cached by the peers for 2 s as by the service; tokens ${context.credentials.jwt.alg}, verified with jose against the local issuer's JWKS (fetched ${context.credentials.jwksFetches.count} times in all).`;
  return `## Peers: ours, the hand-written server and Fastify 5, with and without credentials\n\n${setup}\n\n${parts.join('\n\n')}${notes}`;
}

async function postgresSection(context) {
  const title = '## PostgreSQL (1,000 products, one durable server, pool of 10 per node)';
  const lookup = findPostgres();
  if (!lookup.found) return `${title}\n\n_Not run: PostgreSQL is missing (${lookup.reason})._`;
  const { results, baselineSkipped } = await runPostgres(context);
  const note = baselineSkipped ? `\n\n_The baseline (${context.baseline.build.commit}) has no PostgreSQL engine: not in this table._` : '';
  const setup = `PostgreSQL ${postgresVersion(lookup.bindir)} (the tests' harness), fsync, full_page_writes and synchronous_commit on, pinned to CPU 0 with the load generator`;
  return `${title}\n\n${setup}\n\n${postgresTable(results)}\n\nTargets:\n${postgresTargets(results)}${note}`;
}

// The load generator (this process, every thread of it) stays on CPU 0; servers run on CPU 1.
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
sampleLoad();
let credentials;
try {
  const build = useBuild(options.ours === 'installed' ? installBuild(ROOT, dir) : sourcesBuild());
  const template1k = seededDatabase(dir, 'template-1k', 1_000, build.migrate);
  const baseline = options.baseline === undefined ? undefined : { build: baselineBuild(options.baseline, dir) };
  if (baseline) baseline.template1k = seededDatabase(dir, 'baseline-1k', 1_000, baseline.build.migrate);
  // A baseline of another schema runs in the peers part with auth off only (scenarios/peers.js).
  if (baseline) baseline.sameSchema = baseline.build.schemaVersion === build.schemaVersion;
  // Every database holds the benchmark's API keys; tokens come from a local issuer in this process.
  credentials = options.only.has('peers') ? await benchCredentials() : undefined;
  if (credentials) for (const template of [template1k, baseline?.template1k].filter(Boolean)) seedKeysSqlite(template, credentials.keyRows);
  const machine = machineReport(options, baseline?.build);
  options.log(`${machine}\n`);
  const context = { dir, template1k, baseline, options, credentials };
  const sections = [machine];
  // Each part's section ends with the machine's load average while it ran.
  const part = async (run) => {
    const mark = loadMark();
    const text = await run();
    return `${text}\n\nLoad average (1 min) during this part: ${loadSince(mark)}.`;
  };
  if (options.only.has('peers')) {
    const turns = plannedTurns(options, baseline);
    options.log(`peers: ${turns} contenders × (${options.warmupSeconds} s warm-up + ${options.rounds} × ${options.seconds} s) ≈ ${Math.ceil((turns * (options.warmupSeconds + options.rounds * options.seconds)) / 60)} min of load, plus start-up`);
    sections.push(await part(() => peersSection(context)));
  }
  if (options.only.has('compare')) {
    sections.push(await part(async () => {
      const results = await runCompare(context);
      const before = baseline
        ? `### Before and after: ours against ${baseline.build.ref} (${baseline.build.commit})\n\n${baselineTable(results)}`
        : '### Before and after\n\n_No baseline ran (BENCH_BASELINE=none)._';
      return [
        `## Side by side (1,000 products)\n\n${compareTable(results)}\n\nTargets:\n${compareTargets(results)}`,
        `### The newest API version against the default (ours, the same build)\n\n${newestTable(results)}`,
        `${before}\n\nTargets (issue 32, paired CPU per create):\n${createTargets(results, baseline?.build.ref)}`,
        ...(METRICS_MODE === 'both' ? [`### What metrics cost (ours, metrics on against off)\n\n${metricsTable(results)}`] : []),
      ].join('\n\n');
    }));
  }
  if (options.only.has('scale')) {
    sections.push(await part(async () => {
      const scale = await runScale(context);
      return `## Scale (${scale.largeRows.toLocaleString('en')} against 1,000 products, ours)\n\n${scaleTable(scale)}\n\nTargets:\n${scaleTargets(scale)}`;
    }));
  }
  if (options.only.has('workers')) {
    sections.push(await part(async () => `## Workers (SVC_WORKERS=2 against 1)\n\n${workersTable(await runWorkers(context))}`));
  }
  if (options.only.has('postgres')) sections.push(await part(() => postgresSection(context)));
  const report = `${sections.join('\n\n')}\n`;
  options.log(`\n${report}`);
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  writeFileSync(join(BENCH, 'results/latest.md'), report);
  options.log(`written to bench/results/latest.md${quick ? '' : '; copy it to bench/RESULTS.md to publish it'}`);
} finally {
  await credentials?.close();
  cleanUp();
}

// `npm run bench`: the service against Fastify 5 and a node:http ceiling, then scale and workers.
// Env: BENCH_QUICK=1 (smoke run), BENCH_ROUNDS, BENCH_SECONDS, BENCH_WARMUP_SECONDS,
// BENCH_CONNECTIONS, BENCH_SCALE_ROWS, BENCH_ONLY=compare,scale,workers, BENCH_ENDPOINTS=ping,list,create,
// BENCH_OURS=installed (default: the compiled package, as operators run it) or sources (the checkout's .ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededDatabase } from './lib/database.js';
import { machineReport } from './lib/machine.js';
import { installedServe } from './lib/install.js';
import { BENCH } from './lib/paths.js';
import { killAll } from './lib/processes.js';
import { useServeEntry } from './lib/servers.js';
import { compareTable, compareTargets, runCompare } from './scenarios/compare.js';
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
  only: new Set((process.env.BENCH_ONLY ?? 'compare,scale,workers').split(',').map((s) => s.trim())),
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

// The load generator (this process, every thread of it) stays on CPU 0; servers run on CPU 1.
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
try {
  const machine = machineReport(options);
  options.log(`${machine}\n`);
  if (options.ours === 'installed') useServeEntry(installedServe(dir));
  const template1k = seededDatabase(dir, 'template-1k', 1_000);
  const context = { dir, template1k, options };
  const sections = [machine];
  if (options.only.has('compare')) {
    const results = await runCompare(context);
    sections.push(`## Side by side (1,000 products)\n\n${compareTable(results)}\n\nTargets:\n${compareTargets(results)}`);
  }
  if (options.only.has('scale')) {
    const scale = await runScale(context);
    sections.push(`## Scale (${scale.largeRows.toLocaleString('en')} against 1,000 products, ours)\n\n${scaleTable(scale)}\n\nTargets:\n${scaleTargets(scale)}`);
  }
  if (options.only.has('workers')) {
    sections.push(`## Workers (SVC_WORKERS=2 against 1)\n\n${workersTable(await runWorkers(context))}`);
  }
  const report = `${sections.join('\n\n')}\n`;
  options.log(`\n${report}`);
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  writeFileSync(join(BENCH, 'results/latest.md'), report);
  options.log(`written to bench/results/latest.md${quick ? '' : '; copy it to bench/RESULTS.md to publish it'}`);
} finally {
  cleanUp();
}

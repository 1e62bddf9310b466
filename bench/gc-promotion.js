// `node bench/gc-promotion.js [pairs] [creates]`: what V8's allocation-site pretenuring does to the
// create load (docs/decisions.md, bin/serve.js sets V8's garbage collector itself). Starts ours
// (bin/serve.js of the installed package) `pairs` times as bin/serve.js starts it (no pretenuring) and
// `pairs` times with `--allocation-site-pretenuring` given (which bin/serve.js keeps), alternating,
// each a fresh process on a fresh database pinned to CPU 1 under --trace-gc-nvp; after 20,000 creates
// of warm-up, sends `creates` more from 50 connections and prints, per process, the bytes promoted to
// the old generation per create, the scavenges and mark-compacts, the GC pauses and the process's CPU
// per create (user and system); then how many processes of each kind promoted more than 200 bytes a
// create, and the paired CPU ratio.
// BENCH_FLAGS='<node flags>': the second of each pair is given these instead of the pretenuring flag
// (`--max-semi-space-size=32`: the young generation's bound against bin/serve.js's 16 MiB).
// BENCH_BASELINE=<git ref>: the pairs are that commit's bin/serve.js and ours (as bin/serve.js starts it)
// instead, with the same figures and the paired ratio ours ÷ baseline: what a longer run costs each.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baselineBuild } from './lib/baseline.js';
import { installBuild } from './lib/install.js';
import { BENCH, ROOT } from './lib/paths.js';
import { freePort, userAndSystemSeconds } from './lib/processes.js';
import { median } from './lib/stats.js';

const autocannon = createRequire(join(BENCH, 'package.json'))('autocannon');
const pairs = Number(process.argv[2] ?? 5);
const creates = Number(process.argv[3] ?? 60_000);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-gc-promotion-'));
const body = JSON.stringify({ name: 'Bench product', priceInCents: 1999 });

// One process: its GC lines and CPU over `creates` creates after the warm-up.
async function run(build, flags, n) {
  const port = await freePort();
  const env = { ...process.env, SVC_DB_PATH: join(dir, `gc-${n}.db`), SVC_PORT: String(port), SVC_LOG_LEVEL: 'silent' };
  execFileSync(process.execPath, [build.migrate], { env, stdio: 'ignore' });
  const child = spawn('taskset', ['-c', '1', process.execPath, '--trace-gc-nvp', ...flags, build.serve], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const url = `http://127.0.0.1:${port}/api/products`;
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/ping`);
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const load = (amount) => autocannon({ url, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections: 50, amount });
  const cpu = () => userAndSystemSeconds(child.pid);
  await load(20_000);
  out = '';
  const before = cpu();
  const measured = await load(creates);
  const after = cpu();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('close', resolve));
  const lines = out.split('\n').filter((line) => line.includes('gc='));
  const sum = (pattern, of = lines) => of.reduce((total, line) => total + Number(pattern.exec(line)?.[1] ?? 0), 0);
  const scavenges = lines.filter((line) => / gc=s /.test(line));
  const done = measured.requests.total;
  const perCreate = (seconds) => (seconds * 1e6) / done;
  return {
    promotedPerCreate: sum(/ promoted=(\d+)/) / done,
    scavenges: scavenges.length,
    markCompacts: lines.filter((line) => /gc=mc/.test(line)).length,
    pauseUs: perCreate(sum(/pause=([\d.]+)/) / 1000),
    scavengePauseUs: perCreate(sum(/pause=([\d.]+)/, scavenges) / 1000),
    userUs: perCreate(after.user - before.user),
    systemUs: perCreate(after.system - before.system),
    cpuUs: perCreate(after.user + after.system - before.user - before.system),
  };
}

const baseline = process.env.BENCH_BASELINE;
// The Node flags the second process of each pair is given (bin/serve.js keeps an operator's own).
const flags = (process.env.BENCH_FLAGS ?? '--allocation-site-pretenuring').split(' ').filter(Boolean);
const describe = (row) =>
  `promoted ${Math.round(row.promotedPerCreate)} B/create, ${row.scavenges} scavenges (${row.scavengePauseUs.toFixed(2)} µs/create), ${row.markCompacts} mark-compacts, ` +
  `GC pauses ${row.pauseUs.toFixed(2)} µs/create, CPU ${row.cpuUs.toFixed(1)} µs/create (user ${row.userUs.toFixed(1)}, system ${row.systemUs.toFixed(1)})`;

try {
  const ours = installBuild(ROOT, dir);
  // Two kinds of process, alternating which goes first: [label, build, extra flags].
  const kinds = baseline === undefined
    ? [['as bin/serve.js', ours, []], [`with ${flags.join(' ')}`, ours, flags]]
    : [[`baseline ${baseline} (its bin/serve.js)`, baselineBuild(baseline, dir), []], ['ours (bin/serve.js)', ours, []]];
  const rows = [[], []];
  for (let i = 0; i < pairs; i++) {
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const [label, build, flags] = kinds[k];
      const row = await run(build, flags, `${i}-${k}`);
      rows[k].push(row);
      console.log(`pair ${i + 1} ${label}: ${describe(row)}`);
    }
  }
  const promoting = (list) => list.filter((row) => row.promotedPerCreate > 200).length;
  const ratios = rows[1].map((row, i) => row.cpuUs / rows[0][i].cpuUs);
  console.log(`\n| processes | promoting > 200 B/create | scavenges (median) | CPU µs/create (median) |\n| --- | --- | --- | --- |`);
  kinds.forEach(([label], k) => console.log(`| ${label} | ${promoting(rows[k])} of ${pairs} | ${median(rows[k].map((r) => r.scavenges))} | ${median(rows[k].map((r) => r.cpuUs)).toFixed(1)} |`));
  console.log(`\nCPU per create, ${kinds[1][0]} ÷ ${kinds[0][0]} (paired): ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

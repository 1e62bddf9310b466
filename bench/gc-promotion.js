// `node bench/gc-promotion.js [pairs] [creates]`: what V8's allocation-site pretenuring does to the
// create load (docs/decisions.md, bin/serve.js sets V8's garbage collector itself). Starts ours
// (bin/serve.js of the installed package) `pairs` times as bin/serve.js starts it (no pretenuring) and
// `pairs` times with `--allocation-site-pretenuring` given (which bin/serve.js keeps), alternating,
// each a fresh process on a fresh database pinned to CPU 1 under --trace-gc-nvp; after 20,000 creates
// of warm-up, sends `creates` more from 50 connections and prints, per process, the bytes promoted to
// the old generation per create, the mark-compacts, the GC pauses and the process's CPU per create;
// then how many processes of each kind promoted more than 200 bytes a create, and the paired CPU ratio.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installBuild } from './lib/install.js';
import { BENCH, ROOT } from './lib/paths.js';
import { freePort } from './lib/processes.js';
import { median } from './lib/stats.js';

const autocannon = createRequire(join(BENCH, 'package.json'))('autocannon');
const pairs = Number(process.argv[2] ?? 5);
const creates = Number(process.argv[3] ?? 60_000);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-gc-promotion-'));
const body = JSON.stringify({ name: 'Bench product', priceInCents: 1999 });

// One process: its GC lines and CPU over `creates` creates after the warm-up.
async function run(build, pretenuring, n) {
  const port = await freePort();
  const env = { ...process.env, SVC_DB_PATH: join(dir, `gc-${n}.db`), SVC_PORT: String(port), SVC_LOG_LEVEL: 'silent' };
  execFileSync(process.execPath, [build.migrate], { env, stdio: 'ignore' });
  const flags = ['--trace-gc-nvp', ...(pretenuring ? ['--allocation-site-pretenuring'] : [])];
  const child = spawn('taskset', ['-c', '1', process.execPath, ...flags, build.serve], { env, stdio: ['ignore', 'pipe', 'inherit'] });
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
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  await load(20_000);
  out = '';
  const before = cpu();
  const measured = await load(creates);
  const cpuSeconds = cpu() - before;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('close', resolve));
  const lines = out.split('\n').filter((line) => line.includes('gc='));
  const sum = (pattern) => lines.reduce((total, line) => total + Number(pattern.exec(line)?.[1] ?? 0), 0);
  const done = measured.requests.total;
  return {
    promotedPerCreate: sum(/ promoted=(\d+)/) / done,
    markCompacts: lines.filter((line) => /gc=mc/.test(line)).length,
    pauseUs: (sum(/pause=([\d.]+)/) * 1000) / done,
    cpuUs: (cpuSeconds * 1e6) / done,
  };
}

try {
  const build = installBuild(ROOT, dir);
  const rows = { without: [], with: [] };
  for (let i = 0; i < pairs; i++) {
    for (const pretenuring of i % 2 === 0 ? [false, true] : [true, false]) {
      const row = await run(build, pretenuring, `${i}-${pretenuring}`);
      rows[pretenuring ? 'with' : 'without'].push(row);
      console.log(`pair ${i + 1} ${pretenuring ? 'with pretenuring   ' : 'as bin/serve.js    '}: promoted ${Math.round(row.promotedPerCreate)} B/create, ${row.markCompacts} mark-compacts, GC pauses ${row.pauseUs.toFixed(2)} µs/create, CPU ${row.cpuUs.toFixed(1)} µs/create`);
    }
  }
  const promoting = (list) => list.filter((row) => row.promotedPerCreate > 200).length;
  const ratios = rows.with.map((row, i) => row.cpuUs / rows.without[i].cpuUs);
  console.log(`\n| processes | promoting > 200 B/create | CPU µs/create (median) |\n| --- | --- | --- |`);
  console.log(`| as bin/serve.js (no pretenuring) | ${promoting(rows.without)} of ${pairs} | ${median(rows.without.map((r) => r.cpuUs)).toFixed(1)} |`);
  console.log(`| with --allocation-site-pretenuring | ${promoting(rows.with)} of ${pairs} | ${median(rows.with.map((r) => r.cpuUs)).toFixed(1)} |`);
  console.log(`\nCPU per create, with pretenuring ÷ without (paired): ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

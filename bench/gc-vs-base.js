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
import { baselineBuild } from './lib/baseline.js';
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
async function run(build, pretenuring, n, extra = []) {
  const port = await freePort();
  const env = { ...process.env, SVC_DB_PATH: join(dir, `gc-${n}.db`), SVC_PORT: String(port), SVC_LOG_LEVEL: 'silent' };
  execFileSync(process.execPath, [build.migrate], { env, stdio: 'ignore' });
  const flags = ['--trace-gc-nvp', ...extra];
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
    return [(Number(fields[11])) / 100, Number(fields[12]) / 100];
  };
  await load(20_000);
  out = '';
  const before = cpu();
  const measured = await load(creates);
  const after = cpu(); const cpuSeconds = after[0] + after[1] - before[0] - before[1]; const userUs = (after[0] - before[0]) * 1e6 / measured.requests.total; const sysUs = (after[1] - before[1]) * 1e6 / measured.requests.total;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('close', resolve));
  const lines = out.split('\n').filter((line) => line.includes('gc='));
  const sum = (pattern) => lines.reduce((total, line) => total + Number(pattern.exec(line)?.[1] ?? 0), 0);
  const done = measured.requests.total;
  return {
    promotedPerCreate: sum(/ promoted=(\d+)/) / done,
    markCompacts: lines.filter((line) => /gc=mc/.test(line)).length,
    scavenges: lines.filter((line) => /gc=s /.test(line)).length,
    scavUs: (lines.filter((line) => /gc=s /.test(line)).reduce((t, l) => t + Number(/pause=([\d.]+)/.exec(l)?.[1] ?? 0), 0) * 1000) / measured.requests.total,
    pauseUs: (sum(/pause=([\d.]+)/) * 1000) / done,
    cpuUs: (cpuSeconds * 1e6) / done, userUs, sysUs, batch: 0,
  };
}

try {
  const builds = { ours: installBuild(ROOT, dir), base: baselineBuild('b433c7c', dir) };
  for (let i = 0; i < pairs; i++) {
    for (const name of i % 2 === 0 ? ['ours', 'base'] : ['base', 'ours']) {
      const row = await run(builds[name], false, `${i}-${name}`, name === 'base' ? (process.env.BASE_FLAGS ?? '').split(' ').filter(Boolean) : []);
      const lines = row;
      console.log(`pair ${i + 1} ${name}: promoted ${Math.round(row.promotedPerCreate)} B/create, ${row.markCompacts} mc, scavenges ${row.scavenges} (${row.scavUs.toFixed(2)} µs/create), GC pauses ${row.pauseUs.toFixed(2)} µs/create, CPU ${row.cpuUs.toFixed(1)} µs/create (user ${row.userUs.toFixed(1)}, sys ${row.sysUs.toFixed(1)})`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

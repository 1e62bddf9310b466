// `node bench/young-generation.js [rounds] [seconds]`: what bounding V8's young generation costs and
// saves under the create load (issue 26): ours (bin/serve.js of the installed package) with
// --max-semi-space-size=64 (V8's own growth), 16 (bin/serve.js's default) and 8, beside Fastify, in
// alternating turns of one run; prints each round's peak RSS and CPU per create, then the medians and
// the paired ratios against Fastify and against 64.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyOf, seededDatabase } from './lib/database.js';
import { installBuild } from './lib/install.js';
import { measure } from './lib/load.js';
import { ROOT } from './lib/paths.js';
import { cpuSeconds, killAll, peakRssMb, startServer, stopServer } from './lib/processes.js';
import { REQUESTS } from './lib/requests.js';
import { fastify, ours, useBuild } from './lib/servers.js';
import { median } from './lib/stats.js';

const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 6);
process.once('exit', killAll);
execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
const dir = mkdtempSync(join(tmpdir(), 'svc-young-'));
const VARIANTS = ['semi-space 64', 'semi-space 16', 'semi-space 8', 'Fastify'];
try {
  const build = useBuild(installBuild(ROOT, dir));
  const template = seededDatabase(dir, 'young', 1_000, build.migrate);
  const specOf = (variant, db) => {
    if (variant === 'Fastify') return fastify(dir, db);
    const spec = ours(dir, db);
    return { ...spec, args: [`--max-semi-space-size=${variant.split(' ')[1]}`, ...spec.args] };
  };
  const results = new Map(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      const server = await startServer({ ...specOf(variant, copyOf(template, dir, `${variant.replace(' ', '-')}-${round}`)), name: variant });
      const before = cpuSeconds(server);
      const load = await measure({ ...REQUESTS.create, url: server.url + REQUESTS.create.path, connections: 100, seconds });
      const row = { rps: load.rps, cpuUs: ((cpuSeconds(server) - before) * 1e6) / Math.max(1, load.requests), rssMb: peakRssMb(server) };
      await stopServer(server);
      results.get(variant).push(row);
      console.log(`round ${round + 1} ${variant}: ${Math.round(row.rps)} creates/s, ${Math.round(row.cpuUs)} µs CPU/create, peak RSS ${Math.round(row.rssMb)} MB`);
    }
  }
  const ratio = (a, b, key) => {
    const r = results.get(a).map((x, i) => x[key] / results.get(b)[i][key]);
    return `${median(r).toFixed(2)}× (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)})`;
  };
  console.log('\n| server | creates/s | CPU µs/create | peak RSS MB | RSS ÷ Fastify (paired) | CPU/create ÷ semi-space 64 (paired) |\n| --- | --- | --- | --- | --- | --- |');
  for (const v of VARIANTS) {
    const rows = results.get(v);
    const m = (key) => Math.round(median(rows.map((x) => x[key])));
    const range = (key) => `${Math.round(Math.min(...rows.map((x) => x[key])))}–${Math.round(Math.max(...rows.map((x) => x[key])))}`;
    console.log(`| ${v} | ${m('rps')} | ${m('cpuUs')} (${range('cpuUs')}) | ${m('rssMb')} (${range('rssMb')}) | ${v === 'Fastify' ? '' : ratio(v, 'Fastify', 'rssMb')} | ${v === 'Fastify' || v === 'semi-space 64' ? '' : ratio(v, 'semi-space 64', 'cpuUs')} |`);
  }
} finally {
  killAll();
  rmSync(dir, { recursive: true, force: true });
}

// `npx node bench/sequencer.js [REF]`: what PostgreSQL's event sequencer costs and how late events
// reach streams (docs/events.md, "How late an event is"). REF is a commit without the sequencer (default
// 9c59047^1, main just before it came), built like the benchmark's baseline (lib/baseline.js); this
// checkout is the contender.
// 1. CPU per create: one bin/serve.js of each build on a fresh database of one durable cluster, ROUNDS
//    paired rounds (the order alternating), CREATES creates 16 at a time each; CPU of the server and of
//    the whole cluster (the sequencer's statements run there), after 0.5 s for positions to be given.
//    Reported: each build's median, and the median of the per-round ratios contender / baseline.
// 2. Latency: 3 nodes of this build on one database, a stream open on each, RATE creates a second
//    spread over the nodes for SECONDS; per (event, stream) the time from its 201 to its message.
// 3. The same with the sequencer's node SIGKILLed halfway (it started first, so it holds the lock).
// Env: ROUNDS (5), CREATES (2000), RATE (150), SECONDS (10).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { baselineBuild } from './lib/baseline.js';
import { startBenchPostgres } from './lib/postgres.js';
import { cpuSeconds } from './lib/processes.js';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const REF = process.argv[2] ?? process.env.BENCH_BASELINE ?? '9c59047^1';
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-sequencer-'));
process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
// The installed package of REF: its bin/ beside its compiled dist/, as `root` below expects.
const BASELINE = dirname(dirname(baselineBuild(REF, scratch).serve));
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CREATES = Number(process.env.CREATES ?? 2000);
const RATE = Number(process.env.RATE ?? 150);
const SECONDS = Number(process.env.SECONDS ?? 10);
const LOCK = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 7363 AND objid = 6 AND objsubid = 2 AND granted";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

function serve(root, url) {
  const env = { PATH: process.env.PATH, SVC_DATABASE_URL: url, SVC_PORT: '0', SVC_LOG_LEVEL: 'info', SVC_DB_POOL_SIZE: '8' };
  const child = spawn(process.execPath, [`${root}/bin/serve.js`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const listening = new Promise((resolve, reject) => {
    let text = '';
    const found = (chunk) => {
      text += chunk;
      const match = /"url":"([^"]+)"/.exec(text);
      if (match) resolve(match[1]);
    };
    child.stdout.setEncoding('utf8').on('data', found);
    child.stderr.setEncoding('utf8').on('data', found);
    child.once('exit', () => reject(new Error(`${root} exited: ${text.slice(-2000)}`)));
  });
  return { child, pid: child.pid, listening };
}

async function database(cluster, root, name) {
  await cluster.sql([`CREATE DATABASE ${name} OWNER svc`], 'postgres');
  const url = cluster.urlFor(name);
  execFileSync(process.execPath, [`${root}/bin/migrate.js`], { env: { PATH: process.env.PATH, SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'silent' }, stdio: 'ignore' });
  return url;
}

async function create(base, n) {
  const response = await fetch(`${base}/api/products`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `p${n}`, priceInCents: n }) });
  if (response.status !== 201) throw new Error(`create: ${response.status}`);
  return (await response.json()).id;
}

async function createMany(base, count, concurrency = 16) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await create(base, next++);
  }));
}

async function cpuPerCreate(cluster, cpu, root, name) {
  const url = await database(cluster, root, name);
  const server = serve(root, url);
  const base = await server.listening;
  await createMany(base, 200);
  await sleep(500);
  const before = cpuSeconds(server) + cpu();
  await createMany(base, CREATES);
  await sleep(500);
  const used = cpuSeconds(server) + cpu() - before;
  server.child.kill('SIGKILL');
  return (used / CREATES) * 1e6;
}

// A stream on `base`; each product's arrival time (performance.now()).
function stream(base, arrivals) {
  const req = request(`${base}/api/events`, { headers: { accept: 'text/event-stream' } }, (res) => {
    let buffer = '';
    res.setEncoding('utf8').on('data', (chunk) => {
      const at = performance.now();
      const blocks = (buffer + chunk).split('\n\n');
      buffer = blocks.pop();
      for (const block of blocks) {
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data) arrivals.set(JSON.parse(data.slice(6)).data.id, at);
      }
    });
  });
  req.end();
  return req;
}

async function latency(cluster, name, killHalfway) {
  const url = await database(cluster, HERE, name);
  const first = serve(HERE, url);
  const bases = [await first.listening];
  while (Number(await cluster.sql(LOCK, name)) !== 1) await sleep(20);
  const others = [serve(HERE, url), serve(HERE, url)];
  bases.push(...(await Promise.all(others.map((server) => server.listening))));
  const arrivals = bases.map(() => new Map());
  const requests = bases.map((base, i) => stream(base, arrivals[i]));
  await sleep(300);
  const acked = new Map();
  const started = performance.now();
  let killedAt = null;
  let n = 0;
  const writers = [];
  while (performance.now() - started < SECONDS * 1000) {
    if (killHalfway && killedAt === null && performance.now() - started > (SECONDS * 1000) / 2) {
      first.child.kill('SIGKILL');
      killedAt = performance.now();
    }
    const alive = killedAt === null ? bases : bases.slice(1);
    const target = alive[n % alive.length];
    writers.push(create(target, n++).then((id) => acked.set(id, performance.now())));
    await sleep(1000 / RATE);
  }
  await Promise.all(writers);
  await sleep(2000);
  const delays = [];
  const afterKill = [];
  const streams = killedAt === null ? [0, 1, 2] : [1, 2];
  let missing = 0;
  for (const [id, at] of acked) for (const i of streams) {
    const arrived = arrivals[i].get(id);
    if (arrived === undefined) missing++;
    else {
      delays.push(arrived - at);
      if (killedAt !== null && at >= killedAt && at < killedAt + 1000) afterKill.push(arrived - at);
    }
  }
  requests.forEach((req) => req.destroy());
  [first, ...others].forEach((server) => server.child.kill('SIGKILL'));
  return { events: acked.size, missing, p50: quantile(delays, 0.5), p99: quantile(delays, 0.99), max: Math.max(...delays), afterKillMax: afterKill.length ? Math.max(...afterKill) : null };
}

const { cluster, cpu } = await startBenchPostgres();
try {
  const rows = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['baseline', 'contender'] : ['contender', 'baseline'];
    const row = {};
    for (const which of order) row[which] = await cpuPerCreate(cluster, cpu, which === 'baseline' ? BASELINE : HERE, `cpu_${which}_${round}`);
    rows.push(row);
    console.log(`round ${round + 1}: baseline ${row.baseline.toFixed(0)} us/create, contender ${row.contender.toFixed(0)} us/create, ratio ${(row.contender / row.baseline).toFixed(3)}`);
  }
  const ratios = rows.map((row) => row.contender / row.baseline);
  console.log(`CPU per create (server + cluster): baseline ${median(rows.map((r) => r.baseline)).toFixed(0)} us, contender ${median(rows.map((r) => r.contender)).toFixed(0)} us; median ratio ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`);
  const fmt = (r) => `${r.events} events, ${r.missing} missing, 201 -> stream p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms`;
  console.log(`3 nodes writing ${RATE}/s: ${fmt(await latency(cluster, 'lat_steady', false))}`);
  const killed = await latency(cluster, 'lat_kill', true);
  console.log(`3 nodes, sequencer SIGKILLed halfway: ${fmt(killed)}; acknowledged in the second after the kill: max ${killed.afterKillMax?.toFixed(1)} ms`);
} finally {
  await cluster.stop();
}

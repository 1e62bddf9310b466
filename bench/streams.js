// `npx node bench/streams.js`: 1,000 live streams open on one process (bin/serve.js of the checkout)
// while products are created at 100 a second, on SQLite and on PostgreSQL (a durable throwaway
// cluster, lib/postgres.js). Reports, per engine, whether every stream got every event, once, in the
// feed's order, within 1 s of its 201; the lag from the 201 to a stream's receipt (p50, p99, max);
// the server's memory per open stream; and its CPU per delivered message (the same writes without
// streams subtracted), with the database's on PostgreSQL. One table for both engines.
// Env: STREAMS (1000), RATE (events a second, 100), SECONDS (each write phase, 6), READERS (reader
// processes, 4), ENGINES (sqlite,postgres; PostgreSQL is skipped with a note where it is missing).
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { findPostgres } from '../test/support/postgres-binaries.ts';
import { BENCH, ROOT } from './lib/paths.js';
import { startBenchPostgres } from './lib/postgres.js';
import { cpuSeconds } from './lib/processes.js';
import { markdownTable } from './lib/stats.js';

const STREAMS = Number(process.env.STREAMS ?? 1000);
const RATE = Number(process.env.RATE ?? 100);
const SECONDS = Number(process.env.SECONDS ?? 6);
const READERS = Number(process.env.READERS ?? 4);
const ENGINES = (process.env.ENGINES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const now = () => performance.timeOrigin + performance.now();

// The server's resident memory, from /proc.
const rssBytes = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

// The database of `engine`, migrated by the checkout's bin/migrate.js: the server's environment.
async function database(engine, dir, cluster) {
  // Every stream comes from one address, one caller: it may hold them all (SVC_MAX_STREAMS is half the connections).
  const connections = Math.max(5000, 2 * STREAMS + 100);
  const env = { ...process.env, SVC_PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_MAX_CONNECTIONS: String(connections), SVC_RATE_LIMIT: '0', SVC_STREAMS_PER_CALLER: String(STREAMS) };
  if (engine === 'sqlite') env.SVC_DB_PATH = join(dir, 'app.db');
  else {
    await cluster.sql(['CREATE DATABASE streams OWNER svc'], 'postgres');
    env.SVC_DATABASE_URL = cluster.urlFor('streams');
  }
  execFileSync(process.execPath, [join(ROOT, 'bin/migrate.js')], { env, stdio: 'ignore' });
  return env;
}

function startServer(env) {
  const probe = `--require=${join(BENCH, 'lib/heap-probe.cjs')}`;
  const nodeOptions = [env.NODE_OPTIONS, probe].filter(Boolean).join(' ');
  const child = spawn(process.execPath, [join(ROOT, 'bin/serve.js')], { env: { ...env, SVC_LOG_LEVEL: 'info', NODE_OPTIONS: nodeOptions }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.on('exit', (code, signal) => child.stopping || console.error('server exited', code, signal));
  // The heap probe's lines answer heapAfterGc(); the rest of stderr is the server's own.
  child.probes = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.startsWith('heap-probe ')) child.probes.shift()?.(JSON.parse(line.slice('heap-probe '.length)));
    else process.stderr.write(`${line}\n`);
  });
  return new Promise((resolve) => {
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffered += chunk;
      const match = /"url":"([^"]+)"/.exec(buffered);
      if (match) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({ child, url: match[1] });
      }
    });
  });
}

// The server's heap (used + external) and resident size after a full collection (lib/heap-probe.cjs).
function heapAfterGc(child) {
  const answered = new Promise((resolve) => child.probes.push(resolve));
  child.kill('SIGUSR2');
  return answered;
}

// One create; resolves with the product's id and when its 201 had been read.
function create(url, name) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/products`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      res.on('end', () => (res.statusCode === 201 ? resolve({ id: JSON.parse(body).id, at: now() }) : reject(new Error(`create: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ name, priceInCents: 1 }));
  });
}

// Writes at RATE a second for SECONDS; resolves with each write's product id and acknowledgement time.
async function writePhase(url, label) {
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < RATE * SECONDS; i++) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(create(url, `${label} ${i}`));
  }
  return Promise.all(pending);
}

function ask(child, message, key) {
  return new Promise((resolve) => {
    const answer = (reply) => {
      if (reply[key] === undefined) return;
      child.off('message', answer);
      resolve(reply[key]);
    };
    child.on('message', answer);
    child.send(message);
  });
}

// The products of the feed's product.created events, in the feed's order (the order every stream keeps).
async function feedOrder(url) {
  const ids = [];
  let after = '';
  for (;;) {
    const page = await (await fetch(`${url}/api/events?limit=200${after}`)).json();
    for (const event of page) if (event.type === 'product.created') ids.push(event.data.id);
    if (page.length < 200) return ids;
    after = `&after=${page.at(-1).id}`;
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Every stream against the acknowledged writes and the feed's order. */
function analyse(acked, streams, order) {
  const ackedAt = new Map(acked.map(({ id, at }) => [id, at]));
  const expected = order.filter((id) => ackedAt.has(id));
  const counts = { delivered: 0, missing: 0, duplicated: 0, outOfOrder: 0, late: 0 };
  const lags = [];
  for (const stream of streams) {
    const seen = new Set();
    const got = [];
    stream.ids.forEach((id, i) => {
      if (!ackedAt.has(id)) return;
      if (seen.has(id)) return void counts.duplicated++;
      seen.add(id);
      got.push(id);
      const lag = stream.at[i] - ackedAt.get(id);
      lags.push(lag);
      if (lag > 1000) counts.late++;
    });
    counts.delivered += got.length;
    counts.missing += acked.length - got.length;
    const kept = expected.filter((id) => seen.has(id));
    if (kept.some((id, i) => got[i] !== id)) counts.outOfOrder++;
  }
  lags.sort((a, b) => a - b);
  return { ...counts, notInFeed: acked.length - expected.length, lagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.at(-1) } };
}

/** One engine: the writes alone, then with STREAMS streams open; `databaseCpu` reads the cluster's CPU seconds. */
async function measure(env, databaseCpu = () => 0) {
  const { child, url } = await startServer(env);
  try {
    await sleep(500);
    console.error('phase: writes alone');
    const before = { server: cpuSeconds(child), database: databaseCpu() };
    await writePhase(url, 'alone');
    const alone = { server: cpuSeconds(child) - before.server, database: databaseCpu() - before.database };
    await sleep(500);
    console.error(`phase: open ${STREAMS} streams`);
    const rssBefore = rssBytes(child.pid);
    const heapBefore = await heapAfterGc(child);
    const readers = Array.from({ length: READERS }, () => fork(join(BENCH, 'lib/stream-reader.js')));
    for (const reader of readers) await ask(reader, { open: { url, count: Math.ceil(STREAMS / READERS) } }, 'opened');
    await sleep(3_000);
    const rssOpen = rssBytes(child.pid);
    const heapOpen = await heapAfterGc(child);
    const start = { server: cpuSeconds(child), database: databaseCpu() };
    console.error('phase: writes with streams open');
    const acked = await writePhase(url, 'streamed');
    await sleep(1_500);
    const streamed = { server: cpuSeconds(child) - start.server, database: databaseCpu() - start.database };
    console.error('phase: report');
    const streams = (await Promise.all(readers.map((reader) => ask(reader, { report: true }, 'streams')))).flat();
    const result = analyse(acked, streams, await feedOrder(url));
    const perMessage = (part) => ((streamed[part] - alone[part]) / Math.max(1, result.delivered)) * 1e6;
    return {
      ...result, streams: streams.length, events: acked.length,
      kibPerStream: (rssOpen - rssBefore) / streams.length / 1024,
      heapKibPerStream: (heapOpen.heapUsed + heapOpen.external - heapBefore.heapUsed - heapBefore.external) / streams.length / 1024,
      rssAfterGcKibPerStream: (heapOpen.rss - heapBefore.rss) / streams.length / 1024,
      cpuUs: { server: perMessage('server'), database: perMessage('database') },
      serverCpuSeconds: { alone: alone.server, streamed: streamed.server },
    };
  } finally {
    child.stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

function table(results) {
  const rows = Object.entries(results).map(([engine, r]) => {
    const met = r.missing === 0 && r.duplicated === 0 && r.outOfOrder === 0 && r.late === 0 && r.notInFeed === 0;
    return [engine, r.streams, r.events, `${r.delivered} of ${r.streams * r.events}`, r.missing, r.duplicated, r.outOfOrder, r.late,
      r.lagMs.p50.toFixed(1), r.lagMs.p99.toFixed(1), r.lagMs.max.toFixed(1), r.heapKibPerStream.toFixed(1), `${r.kibPerStream.toFixed(1)} / ${r.rssAfterGcKibPerStream.toFixed(1)}`, r.cpuUs.server.toFixed(1),
      engine === 'postgres' ? r.cpuUs.database.toFixed(1) : '–', `${r.serverCpuSeconds.alone.toFixed(2)} / ${r.serverCpuSeconds.streamed.toFixed(2)}`,
      met ? 'met' : 'MISSED'];
  });
  return markdownTable(['engine', 'streams', 'events', 'messages delivered', 'missing', 'duplicated', 'streams out of the feed\'s order', 'later than 1 s',
    'lag 201 → stream p50 ms', 'p99 ms', 'max ms', 'heap KiB per open stream (after a full GC)', 'resident KiB per open stream (as is / after a full GC)', 'server CPU µs per delivered message', 'database CPU µs per delivered message',
    `server CPU s, writes alone / with streams`, 'every message, once, in order, ≤ 1 s'], rows);
}

const results = {};
const notes = [];
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-streams-'));
try {
  for (const engine of ENGINES) {
    console.error(`## ${engine}`);
    if (engine === 'sqlite') results.sqlite = await measure(await database('sqlite', dir));
    else if (engine === 'postgres') {
      const lookup = findPostgres();
      if (!lookup.found) {
        notes.push(`PostgreSQL not run: ${lookup.reason}`);
        continue;
      }
      const { cluster, cpu } = await startBenchPostgres();
      try {
        results.postgres = await measure(await database('postgres', dir, cluster), cpu);
      } finally {
        await cluster.stop();
      }
    } else throw new Error(`ENGINES takes sqlite, postgres; got ${engine}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const setup = `${STREAMS} streams read by ${READERS} processes, products created at ${RATE} a second for ${SECONDS} s (the same writes without streams first); PostgreSQL durable (fsync, synchronous_commit on)`;
const report = `# Live streams ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC\n\n${setup}\n\n${table(results)}\n${notes.map((note) => `\n- ${note}`).join('')}\n`;
process.stdout.write(report);
mkdirSync(join(BENCH, 'results'), { recursive: true });
writeFileSync(join(BENCH, 'results/streams.md'), report);

// `node bench/webhooks.js [deliveries] [seconds]`: what webhook deliveries cost (docs/benchmarks.md, Webhooks).
// 1. Throughput: `deliveries` events recorded first (SQLite, one webhook), and BENCH_WARMUP_DELIVERIES (1000)
//    more, then one process delivers them to a local receiver (a child process) that answers 204 at once:
//    deliveries per second and the delivering process's CPU per delivery (sending, signing, claiming and
//    recording, SQLite's work included) over the last `deliveries`, once the warm-up ones have compiled
//    its code; and the CPU per delivery over all of them, from a cold start, as earlier runs measured it.
// 2. Latency: for `seconds`, 20 products a second to a healthy webhook, alone and beside one whose receiver
//    never answers (SVC_WEBHOOK_TIMEOUT_MS=2000): the healthy one's p50, p99 and max from the commit to the
//    receipt.
// 3. Transport (a checkout that has src/webhooks/connections.ts): `deliveries` attempts of sendWebhook alone,
//    4 at a time, to the same receiver, with kept connections and with a connection each: CPU per attempt.
// BENCH_BASELINE=<git ref> measures the service at that commit and the checkout in alternate child
// processes, BENCH_ROUNDS rounds (3), and prints each round and the paired ratios (median, range).
// BENCH_PART=throughput runs part 1 alone. BENCH_PROFILE=<file> writes a V8 .cpuprofile of part 1's delivery
// phase, and its summary (bench/lib/profile-summary.js, µs per delivery) to <file>.txt.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib/paths.js';
import { summarizeProfile } from './lib/profile-summary.js';
import { markdownTable, median } from './lib/stats.js';

const total = Number(process.argv[2] ?? 3000);
const seconds = Number(process.argv[3] ?? 10);
// Deliveries made before the throughput is measured: a fresh process compiles its delivery path first.
const warmup = Number(process.env.BENCH_WARMUP_DELIVERIES ?? 1000);
// The service measured: the checkout, or a baseline's tree (set by the parent of BENCH_BASELINE).
const source = process.env.BENCH_SOURCE ?? ROOT;
const svcModule = () => import(pathToFileURL(join(source, 'src', 'index.ts')).href);

// A receiver in its own process, so its CPU is not counted as the deliverer's; prints its port.
function childReceiver(mode) {
  const code = `const http=require('node:http');let n=0;const s=http.createServer((q,r)=>{q.resume();q.on('end',()=>{n++;${mode === 'hang' ? '' : "r.writeHead(204).end();"}})});` +
    `s.listen(0,'127.0.0.1',()=>console.log(s.address().port));process.on('message',()=>process.send(n));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve) => child.stdout.once('data', (port) => resolve({ child, url: `http://127.0.0.1:${String(port).trim()}/hook` })));
}

async function service(env) {
  const { createApp, loadConfig, migrate, openDatabase, startWebhookDeliveries } = await svcModule();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-webhooks-'));
  const path = join(dir, 'app.db');
  const setup = openDatabase(path, { create: true });
  migrate(setup);
  setup.close();
  const config = loadConfig({ SVC_DB_PATH: path, SVC_DB_DURABILITY: 'normal', SVC_LOG_LEVEL: 'silent', SVC_WEBHOOK_ALLOW_PRIVATE: 'true', ...env });
  const db = openDatabase(path, { durability: 'normal' });
  const server = createServer(createApp({ db, config }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const post = (route, body) => fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, config, post, close, deliver: () => startWebhookDeliveries({ db, config }) };
}

async function throughput() {
  const receiver = await childReceiver('answer');
  const svc = await service({});
  const { id } = await svc.post('/api/webhooks', { url: receiver.url });
  const events = warmup + total;
  for (let i = 0; i < events; i += 50) await Promise.all(Array.from({ length: Math.min(50, events - i) }, (_, j) => svc.post('/api/products', { name: `p${i + j}`, priceInCents: 1 })));
  // Waiting costs the measured process one probe of the log's (webhook, status) index every 10 ms:
  // a count of the delivered during the warm-up, then whether any is still pending.
  const count = svc.db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 2');
  const pending = svc.db.prepare('SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND status = 1) AS any');
  const until = async (done) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  const cold = process.cpuUsage();
  const deliveries = svc.deliver();
  await until(() => count.get(id).n >= warmup);
  const profiler = await startProfiler(process.env.BENCH_PROFILE);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await until(() => pending.get(id).any === 0);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const usedCold = process.cpuUsage(cold);
  await profiler?.stop();
  await deliveries.stop();
  receiver.child.kill();
  await svc.close();
  return {
    perSecond: Math.round((total / ms) * 1000),
    cpuMicrosPerDelivery: Math.round((used.user + used.system) / total),
    cpuMicrosPerDeliveryColdStart: Math.round((usedCold.user + usedCold.system) / events),
  };
}

// The V8 profiler on this process until stop(), which writes the profile to `file` (none without a file).
async function startProfiler(file) {
  if (!file) return null;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      writeFileSync(`${file}.txt`, `${deliverySplit(profile)}\n\n${summarizeProfile(profile, [source], { requests: total })}\n`);
      session.disconnect();
    },
  };
}

// Where a delivery's CPU goes: each sample's self time counted to the nearest frame on its stack that
// one of these rules names (a native call, SQLite's included, counts for the function that makes it),
// GC and V8's own work apart; µs per delivery and shares of the busy time.
const SPLIT = [
  ['claims: reads, picks, takes', (f) => /^(dueByWebhook|nextDue|take|claim|claimWithin|#claimSome)$/.test(f.functionName) || f.url.endsWith('webhook-claims.ts')],
  ['recording outcomes', (f) => f.functionName === 'record' && f.url.includes('webhook-deliveries')],
  ['write transactions (BEGIN, savepoints, COMMIT)', (f) => /write-batcher|turn\.ts|revocable/.test(f.url)],
  ['signing', (f) => f.functionName === 'signatureHeader'],
  ['the body (the event in its version)', (f) => /catalogue|presenter|api-versions/.test(f.url) || f.functionName === 'storedEventFromCopy'],
  ['transport (sendWebhook, node:http, sockets)', (f) => /send\.ts|connections\.ts|^node:_http|^node:net|stream/.test(f.url)],
  ['the deliverer and its slots', (f) => /deliverer\.ts|slots\.ts|attempt\.ts|claims\.ts/.test(f.url)],
];

function deliverySplit(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const shares = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const time = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(id).callFrame;
    if (leaf.functionName === '(idle)') return;
    busy += time;
    let part = /^\((garbage collector|program)\)$/.test(leaf.functionName) ? 'GC and V8' : null;
    for (let at = id; part === null && at !== undefined; at = parent.get(at)) part = SPLIT.find(([, names]) => names(byId.get(at).callFrame))?.[0] ?? null;
    shares.set(part ?? 'the rest', (shares.get(part ?? 'the rest') ?? 0) + time);
  });
  const lines = [`where a delivery's CPU goes (busy ${(busy / total).toFixed(0)} µs per delivery under the profiler):`];
  for (const [part, time] of [...shares].sort((a, b) => b[1] - a[1])) lines.push(`  ${((100 * time) / busy).toFixed(1).padStart(5)}%  ${(time / total).toFixed(1).padStart(6)} µs  ${part}`);
  return lines.join('\n');
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(withHanging) {
  const latencies = [];
  const healthy = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      latencies.push(Date.now() - Date.parse(JSON.parse(body).createdAt));
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => healthy.listen(0, '127.0.0.1', resolve));
  const hanging = withHanging ? await childReceiver('hang') : null;
  const svc = await service({ SVC_WEBHOOK_TIMEOUT_MS: '2000', SVC_WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s' });
  await svc.post('/api/webhooks', { url: `http://127.0.0.1:${healthy.address().port}/ok` });
  if (hanging !== null) await svc.post('/api/webhooks', { url: hanging.url });
  const deliveries = svc.deliver();
  const until = Date.now() + seconds * 1000;
  for (let i = 0; Date.now() < until; i++) {
    await svc.post('/api/products', { name: `p${i}`, priceInCents: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  await deliveries.stop(0);
  hanging?.child.kill();
  healthy.closeAllConnections();
  healthy.close();
  await svc.close();
  const sorted = latencies.sort((a, b) => a - b);
  return { delivered: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) };
}

// sendWebhook alone, `total` attempts 4 at a time (a webhook's most in flight), kept connections or not.
async function transport() {
  const { sendWebhook } = await import(pathToFileURL(join(source, 'src', 'webhooks', 'send.ts')).href);
  const { ReceiverConnections } = await import(pathToFileURL(join(source, 'src', 'webhooks', 'connections.ts')).href);
  const receiver = await childReceiver('answer');
  const body = JSON.stringify({ id: '1', type: 'product.created', data: { name: 'lamp' } });
  const request = { url: new URL(receiver.url), headers: { 'content-type': 'application/json' }, body, timeoutMs: 5_000, allowPrivate: true };
  const cpuPerAttempt = async (connections) => {
    const cpu = process.cpuUsage();
    const lane = async () => {
      for (let i = 0; i < total / 4; i++) if ((await sendWebhook({ ...request, connections })).outcome !== 'delivered') throw new Error('an attempt failed');
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    const used = process.cpuUsage(cpu);
    connections?.close();
    return Math.round((used.user + used.system) / total);
  };
  const result = { connectionEach: [], kept: [] };
  for (let round = 0; round < 3; round++) {
    result.connectionEach.push(await cpuPerAttempt(undefined));
    result.kept.push(await cpuPerAttempt(new ReceiverConnections({ perKey: 4, total: 256 })));
  }
  receiver.child.kill();
  return { cpuMicrosPerAttempt: { connectionEach: median(result.connectionEach), kept: median(result.kept) } };
}

async function measure() {
  if (process.env.BENCH_PART === 'throughput') return { throughput: await throughput() };
  const parts = { throughput: await throughput(), alone: await latency(false), besideHanging: await latency(true) };
  if (existsSync(join(source, 'src', 'webhooks', 'connections.ts'))) parts.transport = await transport();
  return parts;
}

// The service at `ref`, exported by git archive into a scratch folder beside the checkout's node_modules.
function baselineTree(ref) {
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-webhooks-baseline-'));
  execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', ROOT, commit, dir]);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { dir, commit: commit.slice(0, 12) };
}

function measureChild(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [process.argv[1], String(total), String(seconds)], { env: { ...process.env, BENCH_BASELINE: '', BENCH_SOURCE: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the measurement of ${dir} exited with ${code}`))));
  });
}

const FIGURES = [
  ['deliveries/s', (r) => r.throughput.perSecond, 'up'],
  ['CPU µs/delivery', (r) => r.throughput.cpuMicrosPerDelivery, 'down'],
  ['CPU µs/delivery from a cold start', (r) => r.throughput.cpuMicrosPerDeliveryColdStart, 'down'],
  ['alone p50 ms', (r) => r.alone?.p50, 'down'],
  ['alone p99 ms', (r) => r.alone?.p99, 'down'],
  ['beside hanging p99 ms', (r) => r.besideHanging?.p99, 'down'],
];

// Rounds of baseline and checkout in turn (the first of each round alternates), then one row per figure.
async function compare(ref, rounds) {
  const baseline = baselineTree(ref);
  const runs = { baseline: [], ours: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['baseline', 'ours'] : ['ours', 'baseline'];
      for (const who of order) {
        runs[who].push({ ...(await measureChild(who === 'ours' ? ROOT : baseline.dir)), load: loadavg()[0] });
        console.error(`round ${round + 1} ${who}: ${JSON.stringify(runs[who].at(-1))}`);
      }
    }
  } finally {
    rmSync(baseline.dir, { recursive: true, force: true });
  }
  const rows = FIGURES.map(([name, read, better]) => {
    const ratios = runs.ours.map((run, i) => (better === 'up' ? read(run) / read(runs.baseline[i]) : read(runs.baseline[i]) / read(run))).filter(Number.isFinite);
    const range = ratios.length === 0 ? '–' : `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
    return [name, runs.baseline.map(read).join(', '), runs.ours.map(read).join(', '), range];
  });
  const loads = [...runs.baseline, ...runs.ours].map((run) => run.load);
  console.log(`baseline ${ref} (${baseline.commit}) against the checkout, ${rounds} rounds, load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (1 min, after each run)\n`);
  console.log(markdownTable(['figure', `baseline, each round`, 'checkout, each round', 'checkout better by (paired, median and range)'], rows));
  const transport = runs.ours.map((run) => run.transport?.cpuMicrosPerAttempt).filter(Boolean);
  if (transport.length > 0) console.log(`\nsendWebhook alone, CPU µs per attempt (medians of each round): a connection each ${transport.map((t) => t.connectionEach).join(', ')}; kept ${transport.map((t) => t.kept).join(', ')}`);
}

if (process.env.BENCH_BASELINE) await compare(process.env.BENCH_BASELINE, Number(process.env.BENCH_ROUNDS ?? 3));
else console.log(JSON.stringify(await measure(), null, 2));

// `node bench/webhooks.js [deliveries] [seconds]`: what webhook deliveries cost (docs/benchmarks.md, Webhooks).
// 1. Throughput: `deliveries` events recorded first (SQLite, one webhook), then one process delivers them to
//    a local receiver (a child process) that answers 204 at once: deliveries per second, and the delivering
//    process's CPU per delivery (sending, signing, claiming and recording, SQLite's work included).
// 2. Fairness: for `seconds`, 20 products a second to two webhooks, one whose receiver never answers
//    (SVC_WEBHOOK_TIMEOUT_MS=2000) and a healthy one; the healthy one's latency from the commit to the
//    receipt, beside the same run with the healthy webhook alone.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, loadConfig, migrate, openDatabase, startWebhookDeliveries } from '../src/index.ts';

const total = Number(process.argv[2] ?? 3000);
const seconds = Number(process.argv[3] ?? 10);

// A receiver in its own process, so its CPU is not counted as the deliverer's; prints its port.
function childReceiver(mode) {
  const code = `const http=require('node:http');let n=0;const s=http.createServer((q,r)=>{q.resume();q.on('end',()=>{n++;${mode === 'hang' ? '' : "r.writeHead(204).end();"}})});` +
    `s.listen(0,'127.0.0.1',()=>console.log(s.address().port));process.on('message',()=>process.send(n));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve) => child.stdout.once('data', (port) => resolve({ child, url: `http://127.0.0.1:${String(port).trim()}/hook` })));
}

async function service(env) {
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
  return { db, config, post, close };
}

async function throughput() {
  const receiver = await childReceiver('answer');
  const svc = await service({});
  await svc.post('/api/webhooks', { url: receiver.url });
  for (let i = 0; i < total; i += 50) await Promise.all(Array.from({ length: Math.min(50, total - i) }, (_, j) => svc.post('/api/products', { name: `p${i + j}`, priceInCents: 1 })));
  const count = svc.db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE status = 2');
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deliveries = startWebhookDeliveries({ db: svc.db, config: svc.config });
  while (count.get().n < total) await new Promise((resolve) => setTimeout(resolve, 20));
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await deliveries.stop();
  receiver.child.kill();
  await svc.close();
  return { perSecond: Math.round((total / ms) * 1000), cpuMicrosPerDelivery: Math.round((used.user + used.system) / total) };
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
  const deliveries = startWebhookDeliveries({ db: svc.db, config: svc.config });
  const until = Date.now() + seconds * 1000;
  for (let i = 0; Date.now() < until; i++) {
    await svc.post('/api/products', { name: `p${i}`, priceInCents: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  await deliveries.stop(0);
  hanging?.child.kill();
  healthy.close();
  await svc.close();
  const sorted = latencies.sort((a, b) => a - b);
  return { delivered: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) };
}

const only = process.env.BENCH_PART;
const result = only === "throughput" ? { throughput: await throughput() } : { throughput: await throughput(), alone: await latency(false), besideHanging: await latency(true) };
console.log(JSON.stringify(result, null, 2));

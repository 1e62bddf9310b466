// `node bench/streams.js` (the pinned Node: `npx node bench/streams.js`): 1,000 live streams open on
// one process (bin/serve.js, SQLite) while events are written at 100 a second. Reports whether every
// stream got every event within 1 s of its 201, the memory each open stream costs the server, and
// the server's CPU per delivered message (the same write rate without streams subtracted).
// Env: STREAMS (1000), RATE (events a second, 100), SECONDS (the write phase, 6).
import { execFileSync, fork, spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STREAMS = Number(process.env.STREAMS ?? 1000);
const RATE = Number(process.env.RATE ?? 100);
const SECONDS = Number(process.env.SECONDS ?? 6);
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString());

// The server's CPU seconds (user + system) and resident memory, from /proc.
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}
const rssBytes = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

function startServer(dir) {
  // Every stream comes from one address, one caller: it may hold them all (SVC_MAX_STREAMS is half the connections).
  const connections = Math.max(5000, 2 * STREAMS + 100);
  const env = {
    ...process.env, SVC_DB_PATH: join(dir, 'app.db'), SVC_PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_MAX_CONNECTIONS: String(connections), SVC_RATE_LIMIT: '0', SVC_STREAMS_PER_CALLER: String(STREAMS),
  };
  execFileSync(process.execPath, [join(ROOT, 'bin/migrate.js')], { env, stdio: 'ignore' });
  const child = spawn(process.execPath, [join(ROOT, 'bin/serve.js')], { env: { ...env, SVC_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
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

// A stream read over a raw socket: only `id: ` lines are looked at, each noted with when it came.
function openStream(url) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const seen = new Map();
  let tail = '';
  socket.setEncoding('utf8');
  socket.on('error', (error) => console.error('stream socket:', error.message));
  socket.write('GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n');
  socket.on('data', (chunk) => {
    const text = tail + chunk;
    const now = Date.now();
    let at = 0;
    for (;;) {
      const start = text.indexOf('\nid: ', at);
      if (start < 0) break;
      const end = text.indexOf('\n', start + 5);
      if (end < 0) break;
      seen.set(text.slice(start + 5, end), now);
      at = end;
    }
    tail = text.slice(Math.max(at, text.length - 64));
  });
  return { socket, seen };
}

function create(url, name) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/products`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(Date.now()));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ name, priceInCents: 1 }));
  });
}

// Writes at RATE a second for SECONDS; resolves with each write's acknowledgement time, in order.
async function writePhase(url, label) {
  const acknowledged = [];
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < RATE * SECONDS; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(create(url, `${label} ${i}`).then((at) => (acknowledged[i] = at)));
  }
  await Promise.all(pending);
  return acknowledged;
}

// The streams are read by READERS processes of their own, so the readers never slow the writer's clock.
const READERS = Number(process.env.READERS ?? 4);
if (process.argv[2] === 'reader') {
  const streams = [];
  process.on('message', (message) => {
    if (message.open !== undefined) {
      for (let i = 0; i < message.open.count; i++) streams.push(openStream(message.open.url));
      process.send({ opened: true });
    } else if (message.report !== undefined) {
      const [from, to] = message.report;
      const seen = streams.map((stream) => {
        const times = [];
        for (let id = from; id <= to; id++) times.push(stream.seen.get(String(id)) ?? null);
        return times;
      });
      for (const stream of streams) stream.socket.destroy();
      // Disconnected only once the (large) report has been handed over.
      process.send({ seen }, () => process.disconnect());
    }
  });
} else await main();

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

async function main() {
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-streams-'));
const { child, url } = await startServer(dir);
child.on('exit', (code, signal) => console.error('server exited', code, signal));
try {
  await sleep(500);
  console.error('phase: writes alone');
  // The write rate alone, for the CPU the streams add.
  let cpu = cpuSeconds(child.pid);
  await writePhase(url, 'alone');
  const cpuAlone = cpuSeconds(child.pid) - cpu;
  await sleep(500);
  console.error('phase: open streams');
  const rssBefore = rssBytes(child.pid);
  const readers = Array.from({ length: READERS }, () => fork(fileURLToPath(import.meta.url), ['reader']));
  for (const reader of readers) await ask(reader, { open: { url, count: Math.ceil(STREAMS / READERS) } }, 'opened');
  await sleep(3_000);
  const rssOpen = rssBytes(child.pid);
  cpu = cpuSeconds(child.pid);
  console.error('phase: writes with streams open');
  const acknowledged = await writePhase(url, 'streamed');
  console.error('phase: report');
  await sleep(1_500);
  const cpuStreamed = cpuSeconds(child.pid) - cpu;
  // Event ids are the positions on SQLite: the streamed phase's events are the last RATE * SECONDS.
  const first = RATE * SECONDS + 1;
  const seenBy = (await Promise.all(readers.map((reader) => ask(reader, { report: [first, first + acknowledged.length - 1] }, 'seen')))).flat();
  let delivered = 0;
  let late = 0;
  let missing = 0;
  const latencies = [];
  for (const times of seenBy) {
    for (let i = 0; i < acknowledged.length; i++) {
      const at = times[i] ?? undefined;
      if (at === undefined) {
        missing++;
        continue;
      }
      delivered++;
      const ms = at - acknowledged[i];
      latencies.push(ms);
      if (ms > 1000) late++;
    }
  }
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const extraCpu = cpuStreamed - cpuAlone;
  console.log(
    JSON.stringify(
      {
        streams: seenBy.length,
        rate: RATE,
        seconds: SECONDS,
        events: acknowledged.length,
        delivered,
        missing,
        lateOver1s: late,
        latencyMs: { p50: pct(50), p99: pct(99), max: latencies.at(-1) },
        memoryPerStreamKiB: Math.round((rssOpen - rssBefore) / STREAMS / 102.4) / 10,
        serverCpuSeconds: { writesAlone: cpuAlone, writesWithStreams: cpuStreamed },
        cpuPerDeliveredMessageUs: Math.round((extraCpu / delivered) * 1e7) / 10,
      },
      null,
      2,
    ),
  );
} finally {
  child.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
}

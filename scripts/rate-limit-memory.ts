// `npx node --expose-gc scripts/rate-limit-memory.ts`: measures the heap a full rate-limit table
// takes (100,000 tracked clients, the default bound), per client, with IPv4 keys and with IPv6 /64
// keys, and for comparison what a sliding log of `limit` timestamps per client would take.
import { RateLimiter, rateLimitKey } from '../src/http/rate-limit.ts';

const CLIENTS = 100_000;
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with --expose-gc');

// Keys built like the server's: flat strings, as a socket's remoteAddress is.
const ipv4 = (i: number): string => [10, (i >> 16) & 255, (i >> 8) & 255, i & 255].join('.');
const ipv6 = (i: number): string => rateLimitKey(['2001', 'db8', (i >> 16).toString(16), (i & 0xffff).toString(16), '0', '0', '0', '1'].join(':'));

function heapAfterGc(): number {
  collect?.();
  collect?.();
  return process.memoryUsage().heapUsed;
}

// Bytes per client of whatever `fill` builds and keeps alive, over CLIENTS clients.
function bytesPerClient(fill: () => { size: number }): number {
  const before = heapAfterGc();
  const table = fill();
  const after = heapAfterGc();
  if (table.size !== CLIENTS) throw new Error(`expected ${CLIENTS} clients, got ${table.size}`);
  return (after - before) / CLIENTS;
}

function limiterOf(key: (i: number) => string): { size: number } {
  let clock = 0;
  const limiter = new RateLimiter({ limit: 60, windowMs: 60_000, maxClients: CLIENTS, now: () => clock });
  // 30 days after the limiter started: the stored tick counts are past 2^31, so each is a boxed
  // double rather than a small integer, the worst case.
  clock = 30 * 86_400_000;
  for (let i = 0; i < CLIENTS; i++) {
    clock += 1;
    limiter.take(key(i));
  }
  return limiter;
}

// A sliding log keeps up to `limit` timestamps per client: here each client's log is full.
function logOf(limit: number): { size: number } {
  const log = new Map<string, number[]>();
  for (let i = 0; i < CLIENTS; i++) log.set(ipv4(i), Array.from({ length: limit }, (_, n) => i + n + 0.5));
  return log;
}

const rows: [string, number][] = [
  ['rate limiter, IPv4 keys', bytesPerClient(() => limiterOf(ipv4))],
  ['rate limiter, IPv6 /64 keys', bytesPerClient(() => limiterOf(ipv6))],
  ['sliding log, limit 10', bytesPerClient(() => logOf(10))],
  ['sliding log, limit 100', bytesPerClient(() => logOf(100))],
];
for (const [what, bytes] of rows) {
  console.log(`${what.padEnd(28)} ${bytes.toFixed(0).padStart(6)} bytes/client  ${((bytes * CLIENTS) / 1e6).toFixed(1).padStart(6)} MB per ${CLIENTS}`);
}

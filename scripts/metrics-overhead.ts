// What counting costs a request: HttpMetrics.started() + finished() (in-flight gauge, status counter,
// duration histogram) over a realistic mix of routes, methods and statuses, against a loop that
// only reads the clock the same way. Also the cost of one scrape (text()).
//
// Usage: npx node scripts/metrics-overhead.ts [million requests=5]
import { UNMATCHED_ROUTE } from '../src/metrics/http-metrics.ts';
import { createServiceMetrics } from '../src/metrics/service-metrics.ts';

const total = Number(process.argv[2] ?? 5) * 1e6;

// What one process sees: mostly reads, some creates, a few errors and unknown paths.
const MIX: readonly (readonly [string, string, number])[] = [
  ['GET', '/api/products', 200],
  ['GET', '/api/products/{id}', 200],
  ['GET', '/api/products/{id}', 200],
  ['GET', '/api/products/{id}', 404],
  ['POST', '/api/products', 201],
  ['POST', '/api/products', 422],
  ['GET', '/api/ping', 200],
  ['HEAD', '/api/products', 200],
  ['GET', '/api/workspaces', 200],
  ['PROPFIND', UNMATCHED_ROUTE, 404],
  ['GET', UNMATCHED_ROUTE, 404],
  ['DELETE', '/api/ping', 405],
];

function nsPerRequest(run: (i: number) => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < total; i++) run(i);
  return Number(process.hrtime.bigint() - start) / total;
}

const metrics = createServiceMetrics();
const { http } = metrics;
let sink = 0;
// The app reads the clock once per request already (startedAt); counting adds everything else.
const baseline = (i: number): void => {
  const entry = MIX[i % MIX.length] as (typeof MIX)[number];
  sink += performance.now() + entry[2];
};
const counted = (i: number): void => {
  const [method, route, status] = MIX[i % MIX.length] as (typeof MIX)[number];
  const startedAt = performance.now();
  http.started();
  http.finished(method, route, status, startedAt);
};
// The second clock read that finished() makes, alone.
const twoClocks = (i: number): void => {
  const entry = MIX[i % MIX.length] as (typeof MIX)[number];
  sink += performance.now() + performance.now() + entry[2];
};

type Round = { baseline: number; counted: number; twoClocks: number };
// The first round warms everything up and is not reported.
const rounds: Round[] = [];
for (let round = 0; round < 4; round++) rounds.push({ baseline: nsPerRequest(baseline), counted: nsPerRequest(counted), twoClocks: nsPerRequest(twoClocks) });
const best = (pick: (r: Round) => number): number => Math.min(...rounds.slice(1).map(pick));

const scrapes = 200;
const scrapeStart = process.hrtime.bigint();
let length = 0;
for (let i = 0; i < scrapes; i++) length = metrics.text().length;
const scrapeUs = Number(process.hrtime.bigint() - scrapeStart) / scrapes / 1000;
metrics.close();

console.log(`${total / 1e6} M requests per round, best of 3 timed rounds (node ${process.version})`);
console.log(`  baseline (mix, one clock read):   ${best((r) => r.baseline).toFixed(1)} ns/request`);
console.log(`  with started() + finished():      ${best((r) => r.counted).toFixed(1)} ns/request`);
console.log(`  added by counting:                ${(best((r) => r.counted) - best((r) => r.baseline)).toFixed(1)} ns/request`);
console.log(`    of which the second clock read: ${(best((r) => r.twoClocks) - best((r) => r.baseline)).toFixed(1)} ns/request`);
console.log(`  one scrape (${MIX.length} label sets, ${length} bytes): ${scrapeUs.toFixed(0)} µs`);
if (sink === -1) console.log(sink);

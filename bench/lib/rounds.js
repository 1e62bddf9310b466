// Alternating rounds: every round hits each contender in turn, forward in odd rounds and backward in
// even ones, so neighbours in the list are always measured in adjacent turns (the pairs the report
// divides) and each goes first in half the pairs. A contender may be a group of servers (group()).
import { measure } from './load.js';
import { cpuSeconds, peakRssMb } from './processes.js';
import { summarize } from './stats.js';

/** Several servers measured as one contender: the connections split between them, req/s and CPU summed. */
export function group(name, servers) {
  return { name, members: servers, url: servers[0].url, schemaVersion: servers[0].schemaVersion };
}

const membersOf = (contender) => contender.members ?? [contender];
const sum = (values) => values.reduce((a, b) => a + b, 0);

// One turn: all members loaded at once (one autocannon each, in this process), then merged. A
// group's latency is that of its slower member. `dbCpu` reads the database's CPU seconds, when shared.
async function turn(contender, req, { connections, seconds, dbCpu }) {
  const members = membersOf(contender);
  const cpuBefore = sum(members.map(cpuSeconds));
  const dbBefore = dbCpu?.();
  const share = (i) => Math.floor(connections / members.length) + (i < connections % members.length ? 1 : 0);
  const parts = await Promise.all(members.map((m, i) => measure({ ...req, url: m.url + req.path, connections: share(i), seconds })));
  const requests = sum(parts.map((p) => p.requests));
  const perRequest = (cpu) => (cpu * 1e6) / Math.max(1, requests);
  return {
    rps: sum(parts.map((p) => p.rps)),
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    loadCpu: Math.max(...parts.map((p) => p.loadCpu)),
    requests,
    ok: sum(parts.map((p) => p.ok)),
    failed: sum(parts.map((p) => p.failed)),
    // Server CPU per request: a figure that other load on a shared machine disturbs far less than req/s.
    cpuUs: perRequest(sum(members.map(cpuSeconds)) - cpuBefore),
    dbCpuUs: dbBefore === undefined ? NaN : perRequest(dbCpu() - dbBefore),
  };
}

/**
 * Warms each contender, runs the rounds, and returns per-contender medians, the rounds themselves
 * (for paired ratios) and peak RSS. `request` may be a function of the server, for paths that differ.
 */
export async function runRounds(servers, request, options) {
  const { rounds, seconds, warmupSeconds, log } = options;
  const requestOf = (server) => (typeof request === 'function' ? request(server) : request);
  for (const server of servers) await turn(server, requestOf(server), { ...options, seconds: warmupSeconds });
  const results = new Map(servers.map((server) => [server.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const server of order) {
      const result = await turn(server, requestOf(server), options);
      results.get(server.name).push(result);
      const db = Number.isFinite(result.dbCpuUs) ? `, database ${Math.round(result.dbCpuUs)} µs CPU/req` : '';
      log(`  round ${round + 1}/${rounds} ${server.name}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${Math.round(result.cpuUs)} µs CPU/req${db}, load generator at ${Math.round(result.loadCpu * 100)}% CPU${result.failed ? `, ${result.failed} FAILED` : ''}`);
    }
  }
  const summary = new Map();
  for (const server of servers) {
    summary.set(server.name, { ...summarize(results.get(server.name)), rssMb: sum(membersOf(server).map(peakRssMb)) });
  }
  return summary;
}

// Alternating rounds: every round hits each server in turn (rotated, so none is always first).
import { measure } from './load.js';
import { cpuSeconds, peakRssMb } from './processes.js';
import { summarize } from './stats.js';

/**
 * Warms each server, runs the rounds, and returns per-server medians plus peak RSS.
 * `request` may be a function of the server, for paths that differ between servers.
 */
export async function runRounds(servers, request, options) {
  const { rounds, seconds, warmupSeconds, connections, log } = options;
  const target = (server) => {
    const req = typeof request === 'function' ? request(server) : request;
    return { ...req, url: server.url + req.path, connections, seconds };
  };
  for (const server of servers) await measure({ ...target(server), seconds: warmupSeconds });
  const results = new Map(servers.map((server) => [server.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round) % servers.length]);
    for (const server of order) {
      const cpuBefore = cpuSeconds(server);
      const result = await measure(target(server));
      // Server CPU per request: a figure that other load on a shared machine disturbs far less than req/s.
      result.cpuUs = ((cpuSeconds(server) - cpuBefore) * 1e6) / Math.max(1, result.requests);
      results.get(server.name).push(result);
      log(`  round ${round + 1}/${rounds} ${server.name}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${Math.round(result.cpuUs)} µs CPU/req, load generator at ${Math.round(result.loadCpu * 100)}% CPU${result.failed ? `, ${result.failed} FAILED` : ''}`);
    }
  }
  const summary = new Map();
  for (const server of servers) summary.set(server.name, { ...summarize(results.get(server.name)), rssMb: peakRssMb(server) });
  return summary;
}

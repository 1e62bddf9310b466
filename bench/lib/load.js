// The load generator: autocannon in this process (which run.js pins to its own CPU).
import autocannon from 'autocannon';

/** One timed run against `url`; returns req/s, latency percentiles (ms) and failures. */
export async function measure({ url, method = 'GET', body, headers, connections, seconds }) {
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const result = await autocannon({
    url,
    method,
    body,
    headers,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
  });
  const cpu = process.cpuUsage(cpuBefore);
  return {
    // Share of one CPU the load generator used: near 100% means it, not the server, set the pace.
    loadCpu: (cpu.user + cpu.system) / 1000 / (performance.now() - startedAt),
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

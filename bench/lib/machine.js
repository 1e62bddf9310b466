// What the numbers were measured on, printed above every table.
import { cpus, loadavg, release, totalmem } from 'node:os';
import { METRICS_MODE } from './servers.js';

/** A markdown header naming the date, machine, Node version and benchmark settings. */
export function machineReport(options) {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const load = loadavg().map((n) => n.toFixed(2)).join(' ');
  return [
    `# Benchmark ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Linux ${release()}, load average at start ${load}`,
    `- Node ${process.version}; each server pinned to CPU 1 (taskset), autocannon on CPU 0`,
    `- ${options.rounds} rounds × ${options.seconds} s per server (alternating), ${options.warmupSeconds} s warm-up, ${options.connections} connections; medians of rounds${options.quick ? ' (QUICK smoke run: not for publishing)' : ''}`,
    `- ours: bin/serve.js ${options.ours === 'installed' ? 'of the package as installed (compiled dist/, as in production)' : 'of the checkout (TypeScript sources, type stripping at run time)'}, SVC_DB_DURABILITY=full (default: fsync before every 201); Fastify: WAL + synchronous=NORMAL`,
    `- metrics (BENCH_METRICS=${METRICS_MODE}): ${METRICS_MODE === 'on' ? 'every server of ours counts and serves /metrics (SVC_METRICS_PORT=0)' : METRICS_MODE === 'both' ? 'the side by side adds "ours, metrics on" (SVC_METRICS_PORT=0)' : 'off (SVC_METRICS_PORT unset)'}`,
  ].join('\n');
}

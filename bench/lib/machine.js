// What the numbers were measured on, printed above every table.
import { cpus, loadavg, release, totalmem } from 'node:os';
import { HANDWRITTEN_JSON, METRICS_MODE } from './servers.js';

const METRICS = {
  on: 'every server of ours counts and serves /metrics (SVC_METRICS_PORT=0)',
  both: 'the side by side adds "ours, metrics on" (SVC_METRICS_PORT=0)',
  off: 'off (SVC_METRICS_PORT unset)',
};

const samples = [];

/** Samples the 1-minute load average every 10 s while the process runs. */
export function sampleLoad() {
  samples.push(loadavg()[0]);
  setInterval(() => samples.push(loadavg()[0]), 10_000).unref();
}

/** A mark for loadSince: the samples taken so far. */
export const loadMark = () => samples.length;

/** The 1-minute load average over the samples since `mark`: lowest, median and highest. */
export function loadSince(mark) {
  const part = samples.slice(mark).sort((a, b) => a - b);
  if (part.length === 0) return 'not sampled';
  return `${part[0].toFixed(2)}–${part.at(-1).toFixed(2)} (median ${part[Math.floor(part.length / 2)].toFixed(2)}, ${part.length} samples every 10 s)`;
}

/** The load average now, as `1.00 0.80 0.50` (1, 5 and 15 minutes). */
export const loadAverage = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/** A markdown header naming the date, machine, Node version and benchmark settings (and the baseline build, if any). */
export function machineReport(options, baseline) {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return [
    `# Benchmark ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Linux ${release()}, load average at start ${loadAverage()}`,
    `- Node ${process.version}; each server pinned to CPU 1 (taskset), autocannon on CPU 0`,
    `- ${options.rounds} rounds × ${options.seconds} s per server (alternating), ${options.warmupSeconds} s warm-up, ${options.connections} connections; medians of rounds${options.quick ? ' (QUICK smoke run: not for publishing)' : ''}`,
    `- ours: bin/serve.js ${options.ours === 'installed' ? 'of the package as installed (compiled dist/, as in production)' : 'of the checkout (TypeScript sources, type stripping at run time)'}, SVC_DB_DURABILITY=full (default: fsync before every 201)${process.env.BENCH_OURS_NODE_ARGS ? `, started as node ${process.env.BENCH_OURS_NODE_ARGS} bin/serve.js (BENCH_OURS_NODE_ARGS)` : ''}; Fastify: WAL + synchronous=NORMAL, rows read as ${process.env.BENCH_PEER_ROWS || 'objects'} (BENCH_PEER_ROWS)`,
    ...(baseline ? [`- ours (baseline): BENCH_BASELINE=${baseline.ref}, commit ${baseline.commit}, built and installed the same way, on a database its own migrations made (schema version ${baseline.schemaVersion})`] : []),
    `- metrics (BENCH_METRICS=${METRICS_MODE}): ${METRICS[METRICS_MODE]}`,
    ...(options.only.has('peers') ? [`- hand-written peer: SVC_DB_DURABILITY of ours (full: a commit and an fsync per create), list pages serialized as ${HANDWRITTEN_JSON === 'string' ? 'one string built by hand' : 'plain objects and one JSON.stringify'} (BENCH_HANDWRITTEN_JSON); PostgreSQL Fastify peer: a create is ${process.env.BENCH_PG_PEER_CREATE === 'transaction' ? 'BEGIN, INSERT … RETURNING, COMMIT' : 'one INSERT … RETURNING in autocommit'} (BENCH_PG_PEER_CREATE)`] : []),
  ].join('\n');
}

// `npx node bench/pg-clients.js` (after `npm --prefix bench install`): which PostgreSQL client the
// service should use, measured. A throwaway cluster (the tests' harness: synchronous_commit on, fsync
// off) pinned to CPU 1; each measurement a fresh worker process pinned to CPU 0 (bench/pg-client-worker.js).
// Rounds alternate the variants in rotating order; the report gives medians, and the client CPU per
// operation of each variant against pg's as the median of the per-round ratios (pairs measured
// back to back, so a noisy machine moves both). Results: printed and bench/results/pg-clients.md.
// Env: BENCH_ROUNDS (5), BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_QUICK=1 (1 round of 2 s),
// BENCH_PG_VARIANTS=pg,pg-named,postgres,postgres-nopipe, BENCH_PG_OPS=read,page,insert,update.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../test/support/postgres.ts';
import { BENCH } from './lib/paths.js';
import { ONLY, SCHEMA } from './lib/pg-variants.js';
import { fixed, markdownTable, median } from './lib/stats.js';

const quick = process.env.BENCH_QUICK === '1';
const list = (name, fallback) => (process.env[name] ?? fallback).split(',').map((s) => s.trim()).filter(Boolean);
const options = {
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 5)),
  seconds: Number(process.env.BENCH_SECONDS ?? (quick ? 2 : 5)),
  warmup: Number(process.env.BENCH_WARMUP_SECONDS ?? 1),
  variants: list('BENCH_PG_VARIANTS', 'pg,pg-named,postgres,postgres-nopipe'),
  operations: list('BENCH_PG_OPS', 'read,page,insert,update'),
};
const pin = cpus().length >= 2 && spawnSync('taskset', ['--version']).status === 0;

function measure(cluster, variant, operation) {
  const [postmaster] = cluster.processIds();
  const args = [join(BENCH, 'pg-client-worker.js'), variant, operation, String(options.seconds), String(options.warmup), cluster.url, String(postmaster)];
  const [program, argv] = pin ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(program, argv, { cwd: BENCH, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${variant} ${operation} exited ${code}`))));
  });
}

async function runRounds(cluster, log) {
  const results = {}; // results[operation][variant] = [round results]
  for (let round = 0; round < options.rounds; round++) {
    const order = options.variants.map((_, i) => options.variants[(i + round) % options.variants.length]);
    for (const operation of options.operations) {
      for (const variant of order.filter((v) => ONLY[v]?.includes(operation) ?? true)) {
        const result = await measure(cluster, variant, operation);
        ((results[operation] ??= {})[variant] ??= []).push(result);
        log(`round ${round + 1} ${operation} ${variant}: ${fixed(result.opsPerSec)} ops/s, client ${fixed(result.clientCpuUsPerOp, 1)} µs/op, server ${fixed(result.serverCpuUsPerOp, 1)} µs/op, errors ${result.errors}${result.firstError ? ` (${result.firstError})` : ''}`);
      }
    }
  }
  return results;
}

function report(results) {
  const base = options.variants[0];
  const sections = Object.entries(results).map(([operation, byVariant]) => {
    const rows = Object.entries(byVariant).map(([variant, rounds]) => {
      const ratios = rounds.map((r, i) => r.clientCpuUsPerOp / byVariant[base][i].clientCpuUsPerOp);
      return [variant, fixed(median(rounds.map((r) => r.opsPerSec))), fixed(median(rounds.map((r) => r.clientCpuUsPerOp)), 1),
        `${median(ratios).toFixed(2)}× (${fixed(Math.min(...ratios), 2)}–${fixed(Math.max(...ratios), 2)})`,
        fixed(median(rounds.map((r) => r.serverCpuUsPerOp)), 1), String(rounds.reduce((sum, r) => sum + r.errors, 0))];
    });
    return `### ${operation}\n\n${markdownTable(['client', 'ops/s', 'client CPU µs/op', `client CPU vs ${base} (median of per-round ratios, range)`, 'server CPU µs/op', 'errors'], rows)}`;
  });
  const header = [
    `# PostgreSQL clients ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
    `- ${options.rounds} rounds × ${options.seconds} s per variant and operation (${options.warmup} s warm-up), 100 concurrent callers, pool of 10 connections${pin ? '; client on CPU 0, PostgreSQL on CPU 1' : ''}${quick ? ' (QUICK: not for publishing)' : ''}`,
  ];
  return [...header, '', ...sections].join('\n');
}

const cluster = await startPostgres();
try {
  await cluster.sql(SCHEMA);
  if (pin) for (const pid of cluster.processIds()) spawnSync('taskset', ['-a', '-p', '-c', '1', String(pid)], { stdio: 'ignore' });
  const results = await runRounds(cluster, (line) => process.stdout.write(`${line}\n`));
  const text = report(results);
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  writeFileSync(join(BENCH, 'results', 'pg-clients.md'), `${text}\n`);
  process.stdout.write(`\n${text}\n`);
} finally {
  await cluster.stop();
}

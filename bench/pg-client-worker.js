// One measurement of bench/pg-clients.js, in a process of its own so one client's JIT and garbage
// never bill the other: 100 callers run one operation through a pool of 10 connections; after the
// warm-up, `seconds` are measured: operations, this process's CPU time (process.cpuUsage) and the
// PostgreSQL server's (all processes of the cluster, from /proc). Prints one JSON line.
// Usage: node pg-client-worker.js VARIANT OPERATION SECONDS WARMUP_SECONDS URL POSTMASTER_PID
import { readdirSync, readFileSync } from 'node:fs';
import { OPERATIONS, VARIANTS } from './lib/pg-variants.js';

const CALLERS = 100;
const [variantName, operationName, seconds, warmupSeconds, url, postmasterPid] = process.argv.slice(2);
const variant = VARIANTS[variantName](url);
const operation = OPERATIONS[operationName];

// CPU time (µs) of the postmaster and all its children: utime + stime, fields 14 and 15 of /proc/PID/stat.
function serverCpuUs() {
  const ticksToUs = 1e6 / 100; // USER_HZ is 100 on Linux
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (name === postmasterPid || fields[1] === postmasterPid) total += (Number(fields[11]) + Number(fields[12])) * ticksToUs;
    } catch {
      // ended while we read
    }
  }
  return total;
}

let done = 0;
let errors = 0;
let firstError = '';
let running = true;

async function caller() {
  while (running) {
    try {
      await operation(variant);
      done++;
    } catch (error) {
      errors++;
      firstError ||= `${error.code ?? ''} ${error.message}`;
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const callers = Array.from({ length: CALLERS }, caller);
await sleep(Number(warmupSeconds) * 1000);
const start = { done, errors, cpu: process.cpuUsage(), server: serverCpuUs(), at: performance.now() };
await sleep(Number(seconds) * 1000);
const cpu = process.cpuUsage(start.cpu);
const server = serverCpuUs() - start.server;
const elapsed = (performance.now() - start.at) / 1000;
const ops = done - start.done;
running = false;
await Promise.all(callers);
await variant.end();
process.stdout.write(
  `${JSON.stringify({
    ops,
    opsPerSec: ops / elapsed,
    clientCpuUsPerOp: (cpu.user + cpu.system) / ops,
    serverCpuUsPerOp: server / ops,
    errors: errors - start.errors,
    firstError,
  })}\n`,
);

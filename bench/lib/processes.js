// Server processes of the benchmark: started pinned to CPUs, awaited until they answer,
// measured (peak RSS) and always stopped, even when the run fails.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const running = new Set();

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node args…` under `taskset -c cpus` in its own process group; resolves once GET readyPath
 * answers 200. `schemaVersion` and `apiVersion` say what its answers look like (lib/requests.js).
 */
export async function startServer({ name, args, env, cpus, cwd, readyPath = '/api/ping', schemaVersion, apiVersion }) {
  const port = await freePort();
  const child = spawn('taskset', ['-c', cpus, process.execPath, ...args], {
    cwd,
    env: { ...env, PORT: String(port), SVC_PORT: String(port), SVC_HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const server = { name, pid: child.pid, url: `http://127.0.0.1:${port}`, child, exited: false, stderr: () => stderr, schemaVersion, apiVersion };
  child.once('exit', () => {
    server.exited = true;
    running.delete(server);
  });
  running.add(server);
  await waitUntilReady(server, readyPath);
  return server;
}

async function waitUntilReady(server, readyPath) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (server.exited) throw new Error(`${server.name} exited before it was ready: ${server.stderr()}`);
    try {
      const response = await fetch(server.url + readyPath);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopServer(server);
  throw new Error(`${server.name} did not answer ${readyPath} within 20 s: ${server.stderr()}`);
}

// The fields of /proc/<pid>/stat after the command name, which is in parentheses and may hold
// spaces: [0] is field 3 (state), [1] the ppid, [11] and [12] utime and stime, [13] and [14] cutime
// and cstime, in clock ticks (USER_HZ, 100 on Linux).
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function childrenOf(pid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(entry)[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

function vmHwmKb(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

// utime + stime of one process, plus cutime + cstime (its children that have exited and been waited
// for), in clock ticks (USER_HZ, 100 on Linux). With the children's share a tree's sum never falls
// when a process in it exits: PostgreSQL's backends of a stopped server end during the next turn, and
// without it their CPU vanished from the sum (negative database CPU per request).
function cpuTicks(pid) {
  try {
    const fields = statFields(pid);
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return 0;
  }
}

function sumOverTree(rootPid, measure) {
  let total = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop();
    total += measure(pid);
    pending.push(...childrenOf(pid));
  }
  return total;
}

/** Peak resident memory (VmHWM) of the server and all its descendants (workers), in MB. */
export function peakRssMb(server) {
  return sumOverTree(server.pid, vmHwmKb) / 1024;
}

/** The user and the system CPU seconds one process has spent so far (not its children's). */
export function userAndSystemSeconds(pid) {
  const fields = statFields(pid);
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** CPU seconds used so far by the server and its descendants (10 ms resolution). */
export function cpuSeconds(server) {
  return sumOverTree(server.pid, cpuTicks) / 100;
}

/** SIGTERM to the server's process group, SIGKILL after 5 s. */
export async function stopServer(server) {
  if (server.exited) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  signalGroup(server, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(server, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  // Workers of a cluster may outlive a primary that was killed hard.
  signalGroup(server, 'SIGKILL');
}

function signalGroup(server, signal) {
  try {
    process.kill(-server.pid, signal);
  } catch {
    // already gone
  }
}

/** Kills every server still running; synchronous so it can run in an 'exit' handler. */
export function killAll() {
  for (const server of running) signalGroup(server, 'SIGKILL');
  running.clear();
}

/** Runs `fn` with servers, stopping them all whatever happens. */
export async function withServers(specs, fn) {
  const servers = [];
  try {
    for (const spec of specs) servers.push(await startServer(spec));
    return await fn(servers);
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';

/** The unprivileged account the PostgreSQL programs run as when we are root (PostgreSQL refuses root). */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/** When we are root: the `postgres` account (Debian's package makes it), else `nobody`; otherwise undefined (we run them as ourselves). */
export function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      return { name, uid, gid };
    } catch {
      // no such account: try the next one
    }
  }
  throw new Error('running as root, and neither a `postgres` nor a `nobody` account exists to run PostgreSQL as');
}

/** A program and its arguments, run as `user` through setpriv (no PAM session, unlike runuser) when one is given. */
export function asUser(user: ServerUser | undefined, program: string, args: readonly string[]): [string, string[]] {
  if (user === undefined) return [program, [...args]];
  return ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', program, ...args]];
}

/** The environment for PostgreSQL programs: ours without PG* variables (a PGHOST or PGPORT must not redirect the harness), C locale (exists everywhere). */
export function programEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('PG')) env[name] = value;
  return { ...env, HOME: home, LC_ALL: 'C' };
}

/** Runs a program to its end; rejects with its stderr (the useful part of a PostgreSQL failure), named by `label`. */
export function run(label: string, command: [string, string[]], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<string> {
  const [program, args] = command;
  return new Promise((resolve, reject) => {
    execFile(program, args, { ...options, encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${label} failed: ${stderr.trim() || error.message}`));
    });
  });
}

// Runs in its own session, so it outlives whatever kills the test process. Its stdin is a pipe from
// that process: `done` means the cluster was stopped already; end of file without it means the process
// died, so it shuts PostgreSQL down (SIGQUIT = immediate shutdown) and removes the folder.
// A zombie (ended, not yet reaped by PID 1, which can lag in containers) counts as ended.
const WATCHDOG = `
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
read -r line
[ "$line" = done ] && exit 0
pid=$(head -n 1 "$1/postmaster.pid" 2>/dev/null)
if [ -n "$pid" ]; then
  kill -QUIT "$pid" 2>/dev/null
  i=0
  while alive "$pid" && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  alive "$pid" && kill -KILL "$pid" 2>/dev/null
fi
rm -rf "$2"
`;

/** Starts the watchdog for a cluster in `dir`; `release()` tells it the cluster was stopped cleanly. */
export function startWatchdog(dataDir: string, dir: string): { child: ChildProcess; release(): void } {
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'postgres-watchdog', dataDir, dir], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Neither the child nor its pipe may keep the test process alive.
  child.unref();
  (child.stdin as Socket).unref();
  return {
    child,
    release() {
      child.stdin?.end('done\n');
    },
  };
}

/** The PIDs of the postmaster whose postmaster.pid is in `dataDir` and of all its children (Linux /proc). */
export function clusterProcessIds(dataDir: string): number[] {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(postmaster) || postmaster <= 0) return [];
  return [postmaster, ...childrenOf(postmaster)];
}

function childrenOf(parent: number): number[] {
  if (!existsSync('/proc/self/stat')) return [];
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name in field 2 may hold spaces and parentheses: the fields after the last ")" are safe.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) children.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

/** True while a process with this PID runs (a zombie, ended but not yet reaped, counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return existsSync('/proc/self/stat') ? false : true; // gone meanwhile, or no /proc to ask
  }
}

/** Resolves once none of the processes runs; pg_ctl's wait ends when postmaster.pid is gone, a moment before the postmaster. */
export async function waitForExit(pids: readonly number[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL processes ${pids.filter(isAlive).join(', ')} still run ${timeoutMs} ms after the stop`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A free TCP port on 127.0.0.1 below the kernel's ephemeral range, so no port-0 server or outgoing
 * connection of another test takes it while the cluster is down for a restart.
 */
export async function pickPort(): Promise<number> {
  const low = ephemeralLow();
  const floor = 10_000;
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low - floor > 1000 ? floor + Math.floor(Math.random() * (low - floor)) : 0;
    const bound = await tryListen(port);
    if (bound !== undefined) return bound;
  }
  throw new Error('no free TCP port on 127.0.0.1 after 50 tries');
}

function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768; // not Linux: the usual low end of the range
  }
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      probe.close(() => resolve(bound));
    });
  });
}

import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'serve.js');

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `bin/serve.js` running as a child process, as an operator would run it. */
export interface SpawnedServer {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Every stdout line so far (one JSON object each). */
  readonly stdout: string[];
  readonly stderr: () => string;
  /** Resolves once the process has exited, however that came about. */
  exited: Promise<ProcessExit>;
  /** Sends `signal` (unless the process has already exited) and resolves with how it ended. */
  kill(signal?: NodeJS.Signals): Promise<ProcessExit>;
}

// The caller's own SVC_* variables must not leak into a test server.
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('SVC_')) base[name] = value;
  return { ...base, SVC_PORT: '0', SVC_HOST: '127.0.0.1', ...env };
}

/** Which stdout lines to keep once the URL is known (all by default); a load run keeps only the telling ones. */
export type KeepLine = (line: string) => boolean;

/** Spawns `bin/serve.js` with `env` (cwd = `cwd`, so no stray `.env` is read) and waits for the first line with a `url`. */
export function spawnServer(env: Record<string, string>, cwd: string, keep: KeepLine = () => true, startTimeoutMs = 15_000): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [SERVE], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  let stderr = '';
  let partial = '';
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${startTimeoutMs} ms: ${stderr}`));
    }, startTimeoutMs);
    let url: string | undefined;
    let started = false;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (url === undefined) url = (JSON.parse(line) as { url?: string }).url;
        else if (!keep(line)) continue;
        stdout.push(line);
      }
      if (url === undefined || started) return;
      started = true;
      clearTimeout(timer);
      resolve(server(url));
    });
    // 'close', not 'exit': by then the pipes are read, so the message has all the server wrote.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (url === undefined) reject(new Error(`server exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });

  function server(url: string): SpawnedServer {
    return {
      url,
      pid: child.pid as number,
      child,
      stdout,
      stderr: () => stderr,
      exited,
      async kill(signal = 'SIGKILL') {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        return exited;
      },
    };
  }
}

/** Resident memory of a process in bytes, from /proc (Linux). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** How many file descriptors a process holds open, from /proc (Linux). */
export function openFileDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

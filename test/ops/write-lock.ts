import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

const HOLDER = fileURLToPath(new URL('./hold-write-lock.ts', import.meta.url));

/** Another process holding the write lock of a SQLite file until `release()`. */
export interface WriteLockHolder {
  /** Lets go of the lock; resolves once the other process has. */
  release(): Promise<void>;
  /** Kills the process if it is still running (harmless afterwards). */
  kill(): void;
}

function nextLine(child: ChildProcess, expected: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: string): void => {
      text += chunk;
      if (!text.split('\n').includes(expected)) return;
      child.stdout?.off('data', onData);
      resolve();
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code}) before saying "${expected}"`)));
  });
}

/** Starts a process that takes the write lock of `dbPath` with BEGIN IMMEDIATE; resolves once it holds it. */
export async function holdWriteLock(dbPath: string): Promise<WriteLockHolder> {
  const child = spawn(process.execPath, [HOLDER, dbPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  await nextLine(child, 'locked');
  return {
    async release() {
      const released = nextLine(child, 'released');
      child.stdin?.end('release\n');
      await released;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** A response read over a connection of its own, and how long it took from sending to its end. */
export interface TimedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/**
 * Sends one request on a new connection (so that, with several workers, the primary hands the
 * requests out in turn) and times it until the whole response has arrived.
 */
export function timedRequest(url: string, options: { method?: string; body?: unknown; requestId?: string } = {}): Promise<TimedResponse> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.requestId !== undefined) headers['x-request-id'] = options.requestId;
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ms: performance.now() - startedAt }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

import { type ChildProcess, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

const SERVE = fileURLToPath(new URL('../../bin/serve.js', import.meta.url));

/** A `bin/serve.js` child process whose stdout lines are parsed as they arrive. */
export interface ServeProcess {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: () => string;
  /** Resolves with the first line (already seen or yet to come) that `match` accepts. */
  waitForLine(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** SIGKILLs the process (and is harmless once it has exited). */
  kill(): void;
}

function cleanEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('SVC_') && value !== undefined) base[name] = value;
  return { ...base, SVC_PORT: '0', SVC_DB_DURABILITY: 'normal', ...env };
}

/** Spawns `bin/serve.js` with the pinned Node and `env` (port 0 and normal durability unless given). */
export function spawnServe(env: Record<string, string>): ServeProcess {
  const child = spawn(process.execPath, [SERVE], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) if (part !== '') lines.push(JSON.parse(part) as Record<string, unknown>);
    waiters.forEach((check) => check());
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // Once the process has exited, what it wrote last may still be in the pipes: 'close' comes after them.
  const drained = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      waiters.forEach((check) => check());
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const waitForLine = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no matching log line in ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const done = (error: Error | null, line?: Record<string, unknown>): void => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error === null) resolve(line as Record<string, unknown>);
        else reject(error);
      };
      let judging = false;
      const check = (): void => {
        const found = lines.find(match);
        if (found !== undefined) done(null, found);
        else if ((child.exitCode !== null || child.signalCode !== null) && !judging) {
          judging = true;
          // Judged once the pipes are read (a worker may hold them: 2 s at most), with how it ended and its last lines.
          void Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2_000))]).then(() => {
            const late = lines.find(match);
            const how = child.exitCode ?? child.signalCode;
            if (late !== undefined) done(null, late);
            else done(new Error(`process exited (${how}); last lines: ${JSON.stringify(lines.slice(-3))}; stderr: ${stderr}`));
          });
        }
      };
      waiters.add(check);
      check();
    });
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { child, lines, stderr: () => stderr, waitForLine, exited, kill };
}

/** Waits for the start-up line and returns the URL it names. */
export async function urlOf(serve: ServeProcess): Promise<string> {
  const line = await serve.waitForLine((l) => typeof l['url'] === 'string');
  return line['url'] as string;
}

/** A parsed HTTP/1.1 response read from a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw TCP connection that reads HTTP/1.1 responses (Content-Length framed) in order. */
export interface RawConnection {
  socket: Socket;
  /** The next complete response on this connection. */
  next(timeoutMs?: number): Promise<RawResponse>;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
}

function parseOne(buffer: string): { response: RawResponse; rest: string } | null {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const [statusLine = '', ...headerLines] = buffer.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyStart = headEnd + 4;
  if (Buffer.byteLength(buffer.slice(bodyStart)) < length) return null;
  const body = buffer.slice(bodyStart, bodyStart + length);
  return { response: { status: Number(statusLine.split(' ')[1]), headers, body }, rest: buffer.slice(bodyStart + length) };
}

/** Opens a raw connection to the host and port of `url`. */
export async function rawConnect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  let buffer = '';
  const waiting: (() => void)[] = [];
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    buffer += chunk;
    waiting.splice(0).forEach((wake) => wake());
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => waiting.splice(0).forEach((wake) => wake()));
  const next = async (timeoutMs = 10_000): Promise<RawResponse> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseOne(buffer);
      if (parsed !== null) {
        buffer = parsed.rest;
        return parsed.response;
      }
      if (socket.destroyed) throw new Error('connection closed before a complete response');
      if (Date.now() > deadline) throw new Error('no complete response in time');
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return { socket, next, closed };
}

/** A product body that passes validation. */
export const PRODUCT = { name: 'Desk lamp', priceInCents: 1999 } as const;

/** The request head of a JSON POST whose body is `length` bytes long. */
export function postHead(path: string, length: number, extra: Record<string, string> = {}): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: localhost', 'Content-Type: application/json', `Content-Length: ${length}`];
  for (const [name, value] of Object.entries(extra)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Two `bin/serve.js` processes on one fresh test database (a SQLite file, or a PostgreSQL database). */
export interface TwoProcesses {
  database: TestDatabase;
  servers: ServeProcess[];
  urls: string[];
  /** Kills both, waits for them, and drops the database. */
  stop(): Promise<void>;
}

/** Starts two processes on one database, as two workers, or two hosts on one database server, would be. */
export async function startTwoProcesses(): Promise<TwoProcesses> {
  const database = await createTestDatabase();
  const servers = [spawnServe(database.env), spawnServe(database.env)];
  const urls = await Promise.all(servers.map(urlOf));
  return {
    database,
    servers,
    urls,
    async stop() {
      servers.forEach((server) => server.kill());
      await Promise.all(servers.map((server) => server.exited));
      await database.drop();
    },
  };
}

import { type ChildProcess, spawn } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

/** Absolute paths of the bin scripts, so tests may run them from any working directory. */
export const BIN = {
  serve: fileURLToPath(new URL('../../bin/serve.js', import.meta.url)),
  migrate: fileURLToPath(new URL('../../bin/migrate.js', import.meta.url)),
  keys: fileURLToPath(new URL('../../bin/keys.js', import.meta.url)),
} as const;

/** How a finished child process ended. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** The Node binary; the one running the tests by default. */
  node?: string;
  /** Node's own flags, before the script (those NODE_OPTIONS may not carry). */
  nodeArgs?: readonly string[];
}

/** The parent's environment without any SVC_* variable, plus `env`: a test sees only what it sets. */
export function cleanEnv(env: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SVC_') && value !== undefined) base[name] = value;
  }
  return { ...base, ...env };
}

/** Starts `node script args` with a clean environment; output is collected as it arrives. */
export function startBin(script: string, args: readonly string[], options: RunOptions = {}): ChildProcess & { output: RunResult; done: Promise<RunResult> } {
  const child = spawn(options.node ?? process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: RunResult = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const done = new Promise<RunResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      output.code = code;
      output.signal = signal;
      resolve(output);
    });
  });
  return Object.assign(child, { output, done });
}

/** Runs `node script args` to completion, killing it if it outlives `timeoutMs`. */
export async function runBin(script: string, args: readonly string[] = [], options: RunOptions = {}, timeoutMs = 20_000): Promise<RunResult> {
  const child = startBin(script, args, options);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await child.done;
  } finally {
    clearTimeout(timer);
  }
}

/** The non-empty lines of a stream's text. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** The schema version (`user_version`) of the SQLite file at `dbPath`, read without changing it. */
export function schemaVersionOf(dbPath: string): number {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(db.prepare('PRAGMA user_version').get()?.['user_version']);
  } finally {
    db.close();
  }
}

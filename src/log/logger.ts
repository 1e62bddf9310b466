import { hostname } from 'node:os';
import type { LogLevel } from '../shared/settings.ts';

/** pino's numeric levels; `silent` is above every level. */
export const LEVEL_NUMBERS: Readonly<Record<LogLevel, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

export type LogFields = Readonly<Record<string, unknown>>;

/** A pino-compatible JSON-lines logger (docs/operations.md, Logs). */
export interface Logger {
  isEnabled(level: number): boolean;
  /** Writes one line; `fields` go between `hostname` and `msg`, as in pino. */
  write(level: number, msg: string, fields?: LogFields): void;
  /** Writes one line whose middle is already JSON text (`"a":1,"b":2`); the fast path for access logs. */
  writeRaw(level: number, msg: string, json: string): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  fatal(msg: string, fields?: LogFields): void;
  flush(): void;
}

/** Where batches of lines go; stdout by default. */
export type LogSink = (chunk: string) => void;

const stdout: LogSink = (chunk) => {
  process.stdout.write(chunk);
};

// Lines still waiting in a writer when the process exits are written then. A writer is listed here
// only while it holds such lines, so a logger nobody uses any more is not kept alive by this set.
const unflushed = new Set<() => void>();
process.once('exit', () => unflushed.forEach((flush) => flush()));

// Lines written in one event-loop turn leave in one write call, not one each.
function batchedWriter(sink: LogSink): { push(line: string): void; flush(): void } {
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    unflushed.delete(flush);
    if (pending === '') return;
    const text = pending;
    pending = '';
    sink(text);
  };
  return {
    push(line) {
      if (pending === '') unflushed.add(flush);
      pending += line;
      if (pending.length > 65_536) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return { type: error.name, message: error.message, stack: error.stack };
}

/** Creates a logger that writes lines at or above `level` to `sink` (default stdout). */
export function createLogger(level: LogLevel, sink: LogSink = stdout): Logger {
  const threshold = LEVEL_NUMBERS[level];
  const prefix = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  const out = batchedWriter(sink);
  const line = (lvl: number, middle: string, msg: string): void => {
    out.push(`{"level":${lvl},"time":${Date.now()}${prefix}${middle},"msg":${JSON.stringify(msg)}}\n`);
  };
  const write = (lvl: number, msg: string, fields?: LogFields): void => {
    if (lvl < threshold) return;
    let middle = '';
    for (const [key, value] of Object.entries(fields ?? {})) {
      const json = JSON.stringify(key === 'err' ? serializeError(value) : value);
      if (json !== undefined) middle += `,${JSON.stringify(key)}:${json}`;
    }
    line(lvl, middle, msg);
  };
  return {
    isEnabled: (lvl) => lvl >= threshold,
    write,
    writeRaw(lvl, msg, json) {
      if (lvl >= threshold) line(lvl, json === '' ? '' : `,${json}`, msg);
    },
    info: (msg, fields) => write(30, msg, fields),
    warn: (msg, fields) => write(40, msg, fields),
    error: (msg, fields) => write(50, msg, fields),
    fatal: (msg, fields) => {
      write(60, msg, fields);
      out.flush();
    },
    flush: out.flush,
  };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { reasonPhrase } from './errors.ts';
import type { Reply } from './reply.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

/** Bytes that may wait in the process for one streamed response before its reader is cut off (docs/events.md: 1 MiB). */
export const MAX_WAITING_BYTES = 1024 * 1024;
/** How often a streamed response's credential is checked again, so a revoked key ends it within 5 s. */
export const REVALIDATE_MS = 2_000;

/** Where a streamed body writes; every method may be called after the stream ended and then does nothing. */
export interface StreamSink {
  /** Sends `text`; false once the stream has ended. A reader with MAX_WAITING_BYTES or more waiting is cut off. */
  write(text: string): boolean;
  /** Ends the response cleanly: its last chunk is sent, then the connection closes. */
  end(): void;
  readonly ended: boolean;
  /** Resolves once what waits has been handed to the operating system, or the stream ended. */
  drained(): Promise<void>;
}

/** A response body written over time (server-sent events), after a 200 head of `contentType`. */
export interface StreamedBody {
  readonly contentType: string;
  /** Called once the head is sent; returns what to call when the stream ends, for whatever reason. */
  start(sink: StreamSink): () => void;
}

/** What bounds a stream's life besides its body: its caller's credential. */
export interface StreamLimits {
  /** Whether the caller's credential still holds, asked every REVALIDATE_MS; null when no caller is known. */
  stillValid: (() => Promise<boolean>) | null;
  /** When the credential stops being valid (ms since the epoch), when it says. */
  expiresAt: number | undefined;
}

const BASE_HEADERS: readonly string[] = Object.entries(SECURITY_HEADERS).flat();
/** The longest wait setTimeout takes (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms. */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `end` at `at` (ms since the epoch), however far ahead: a wait longer than a timer can hold is
 * made of several. Returns what cancels it.
 */
export function callAt(at: number, end: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const wait = at - Date.now();
    timer = setTimeout(wait > LONGEST_TIMER_MS ? arm : end, Math.min(Math.max(0, wait), LONGEST_TIMER_MS));
  };
  arm();
  return () => clearTimeout(timer);
}

// Ends the stream when the credential is refused; a check that cannot be made now (storage down) keeps it.
function watchCredential(limits: StreamLimits, end: () => void): () => void {
  const stops: (() => void)[] = [];
  if (limits.stillValid !== null) {
    const stillValid = limits.stillValid;
    const timer = setInterval(() => void stillValid().then((valid) => valid || end(), () => {}), REVALIDATE_MS);
    stops.push(() => clearInterval(timer));
  }
  if (limits.expiresAt !== undefined) stops.push(callAt(limits.expiresAt, end));
  return () => {
    for (const stop of stops) stop();
  };
}

function sinkOn(res: ServerResponse): StreamSink {
  return {
    write(text) {
      if (res.destroyed || res.writableEnded) return false;
      res.write(text);
      // The body never waits without bound: a reader this far behind has stopped reading.
      if (res.writableLength >= MAX_WAITING_BYTES) res.destroy();
      return !res.destroyed;
    },
    end() {
      if (!res.destroyed && !res.writableEnded) res.end();
    },
    get ended() {
      return res.destroyed || res.writableEnded;
    },
    drained() {
      if (res.writableLength === 0 || res.destroyed || res.writableEnded) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
  };
}

/**
 * Sends the head of a streamed reply (the security headers, `cors`, no buffering by proxies, the
 * connection closed at its end) and starts its body. Resolves once the stream has ended, for whatever
 * reason: its body ended it, `stop` was called (graceful shutdown), its credential was refused or
 * expired, or its reader went away or stopped reading.
 */
export function sendStream(req: IncomingMessage, res: ServerResponse, reply: Reply & { stream: StreamedBody }, requestId: string, cors: readonly string[], limits: StreamLimits): { stop(): void; ended: Promise<void> } {
  // Its client went away while the stream was being prepared (its place read): 'close' was emitted
  // already and will not come again, so nothing is started that would wait for it.
  if (res.closed) return { stop: () => {}, ended: Promise.resolve() };
  const headers = [...BASE_HEADERS, ...cors, 'x-request-id', requestId, 'content-type', reply.stream.contentType, 'x-accel-buffering', 'no', 'connection', 'close'];
  for (const name in reply.headers) headers.push(name, reply.headers[name] as string);
  res.writeHead(200, reasonPhrase(200), headers);
  const ended = new Promise<void>((resolve) => res.once('close', resolve));
  // HEAD: the head a GET would get, and no body, so no stream is opened at all.
  if (req.method === 'HEAD') {
    res.end();
    return { stop: () => {}, ended };
  }
  res.flushHeaders();
  const sink = sinkOn(res);
  const stopWatching = watchCredential(limits, () => sink.end());
  const stopBody = reply.stream.start(sink);
  void ended.then(() => {
    stopWatching();
    stopBody();
  });
  // A request body nobody reads (a GET should have none) must not hold the stream's socket.
  req.resume();
  return { stop: () => sink.end(), ended };
}

import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One message of a server-sent-events stream, as the WHATWG parser reads it (comments apart). */
export interface StreamMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** A live stream opened over node:http, read message by message. */
export interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every message so far, in order. */
  readonly messages: StreamMessage[];
  /** How many comment lines came so far. */
  readonly comments: number;
  /** Everything received so far, as text. */
  readonly text: string;
  /** Resolves once `count` messages have come (all of them), or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<StreamMessage[]>;
  /** Resolves when the response ended: `clean` when it finished (its last chunk came), false when cut off. */
  readonly ended: Promise<{ clean: boolean }>;
  /** Resolves after the next comment line. */
  nextComment(timeoutMs?: number): Promise<void>;
  /** Resolves once `count` comment lines have come in all. */
  waitForComments(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

// The field lines of one block (WHATWG HTML §9.2.6): `name: value` (one space after the colon dropped).
function parseBlock(block: string): StreamMessage | 'comment' | null {
  const message: StreamMessage = { id: undefined, event: undefined, data: '' };
  let data: string[] | null = null;
  let comment = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comment = true;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id') message.id = value;
    else if (name === 'event') message.event = value;
    else if (name === 'data') (data ??= []).push(value);
  }
  if (data === null) return comment ? 'comment' : null;
  message.data = data.join('\n');
  return message;
}

/** Where a stream is opened from: a source address of 127.0.0.0/8 (a client of its own), on a connection of its own. */
export interface StreamOptions {
  localAddress?: string;
}

/** Opens `GET url` with `Accept: text/event-stream` and `headers`; resolves once the head came (a refusal too: see `status`). */
export function openStream(url: string, headers: Record<string, string> = {}, options: StreamOptions = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const from = options.localAddress === undefined ? {} : { localAddress: options.localAddress, agent: false as const };
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, ...from });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => resolve(streamOf(req, res)));
    req.end();
  });
}

function streamOf(req: ReturnType<typeof request>, res: IncomingMessage): OpenStream {
  const messages: StreamMessage[] = [];
  let comments = 0;
  let text = '';
  let pending = '';
  const waiters = new Set<() => void>();
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
    const blocks = (pending + chunk).split('\n\n');
    pending = blocks.pop() ?? '';
    for (const block of blocks) {
      const parsed = parseBlock(block);
      if (parsed === 'comment') comments += 1;
      else if (parsed !== null) messages.push(parsed);
    }
    for (const waiter of waiters) waiter();
  });
  const ended = new Promise<{ clean: boolean }>((resolve) => {
    res.on('end', () => resolve({ clean: res.complete }));
    res.on('error', () => resolve({ clean: false }));
    res.on('aborted', () => resolve({ clean: false }));
    req.on('error', () => resolve({ clean: false }));
  });
  void ended.then(() => {
    for (const waiter of waiters) waiter();
  });
  let done = false;
  void ended.then(() => (done = true));
  function until(check: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`${what()} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (): void => {
        if (check()) {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        } else if (done) {
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(new Error(`${what()}: the stream ended`));
        }
      };
      waiters.add(waiter);
    });
  }
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    messages,
    get comments() {
      return comments;
    },
    get text() {
      return text;
    },
    async waitFor(count, timeoutMs = 10_000) {
      await until(() => messages.length >= count, timeoutMs, () => `expected ${count} messages, got ${messages.length}`);
      return messages;
    },
    ended,
    nextComment(timeoutMs = 20_000) {
      const seen = comments;
      return until(() => comments > seen, timeoutMs, () => 'no comment');
    },
    waitForComments(count, timeoutMs = 20_000) {
      return until(() => comments >= count, timeoutMs, () => `expected ${count} comments, got ${comments}`);
    },
    close: () => req.destroy(),
  };
}

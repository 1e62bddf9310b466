import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response as read off the wire. */
export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers };
}

/**
 * Takes one complete response off the front of `buffer`, or null when more bytes are needed.
 * `ended` says the peer closed, so a body without Content-Length ends here.
 */
function takeResponse(buffer: Buffer, bodyless: boolean, ended: boolean): { response: RawResponse; rest: Buffer } | null {
  const headEnd = buffer.indexOf(HEAD_END);
  if (headEnd === -1) return null;
  const { status, headers } = parseHead(buffer.subarray(0, headEnd).toString('latin1'));
  const bodyStart = headEnd + HEAD_END.length;
  // An interim answer (100 Continue) comes before the real one.
  if (status < 200) return takeResponse(buffer.subarray(bodyStart), bodyless, ended);
  const length = headers['content-length'];
  if (bodyless || status === 204 || status === 304) {
    return { response: { status, headers, body: Buffer.alloc(0) }, rest: buffer.subarray(bodyStart) };
  }
  if (length === undefined) {
    if (!ended) return null;
    return { response: { status, headers, body: buffer.subarray(bodyStart) }, rest: Buffer.alloc(0) };
  }
  const bodyEnd = bodyStart + Number(length);
  if (buffer.length < bodyEnd) return null;
  return { response: { status, headers, body: buffer.subarray(bodyStart, bodyEnd) }, rest: buffer.subarray(bodyEnd) };
}

/**
 * A keep-alive client that writes any bytes at all (invalid methods, paths, headers, UTF-8) and
 * reads the answer; node:http and fetch refuse to send most of what a hostile client would.
 */
export class RawClient {
  readonly #port: number;
  readonly #host: string;
  #socket: Socket | null = null;
  /** Connections opened so far (one more each time the server closed the last one). */
  connections = 0;

  constructor(url: string) {
    const parsed = new URL(url);
    this.#port = Number(parsed.port);
    this.#host = parsed.hostname;
  }

  /** Sends `request` and resolves with the response, or null when the server closed without one. */
  send(request: Buffer, options: { bodyless?: boolean; timeoutMs?: number } = {}): Promise<RawResponse | null> {
    const reusable = this.#socket !== null && !this.#socket.destroyed && this.#socket.writable && !this.#socket.readableEnded;
    const socket = reusable && this.#socket !== null ? this.#socket : this.#open();
    return new Promise((resolve, reject) => {
      let buffer = Buffer.alloc(0);
      const finish = (response: RawResponse | null, keep: boolean): void => {
        cleanup();
        const closing = response?.headers['connection']?.toLowerCase().split(/\s*,\s*/).includes('close') === true;
        if (!keep || closing) this.#drop(socket);
        resolve(response);
      };
      const attempt = (ended: boolean): void => {
        try {
          const taken = takeResponse(buffer, options.bodyless === true, ended);
          if (taken !== null) finish(taken.response, !ended && taken.rest.length === 0);
          else if (ended) finish(null, false);
        } catch (error) {
          cleanup();
          this.#drop(socket);
          reject(error as Error);
        }
      };
      const onData = (chunk: Buffer): void => {
        buffer = Buffer.concat([buffer, chunk]);
        attempt(false);
      };
      const onEnd = (): void => attempt(true);
      const timer = setTimeout(() => {
        cleanup();
        this.#drop(socket);
        reject(new Error(`no response within ${options.timeoutMs ?? 5000} ms`));
      }, options.timeoutMs ?? 5000);
      const cleanup = (): void => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('end', onEnd);
        socket.off('close', onEnd);
      };
      socket.on('data', onData);
      socket.on('end', onEnd);
      socket.on('close', onEnd);
      socket.write(request);
    });
  }

  /** Closes the current connection, if any. */
  close(): void {
    if (this.#socket !== null) this.#drop(this.#socket);
  }

  #open(): Socket {
    const socket = connect(this.#port, this.#host);
    // A reset after the server refused a request is an answer here, not a failure.
    socket.on('error', () => {});
    this.#socket = socket;
    this.connections++;
    return socket;
  }

  #drop(socket: Socket): void {
    socket.destroy();
    if (this.#socket === socket) this.#socket = null;
  }
}

/** Builds request bytes: a request line, header lines as given (no checks at all) and a body. */
export function rawRequest(method: string, target: string, headers: readonly [string, string][], body: Buffer = Buffer.alloc(0)): Buffer {
  const head = [`${method} ${target} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

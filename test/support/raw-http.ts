import { connect } from 'node:net';

/** A response read off a raw socket: status, lower-cased headers, body text, and whether the server closed. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  closedByServer: boolean;
}

function parse(raw: string, closedByServer: boolean): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: end === -1 ? '' : raw.slice(end + 4), closedByServer };
}

/**
 * Sends `head` (request line and headers, without the blank line) then each of `chunks`,
 * and resolves once the server closes the connection or `waitMs` passes after the last write.
 * A failing write (the server stopped reading) does not fail the call: what was answered counts.
 */
export function rawRequest(url: string, head: string, chunks: readonly (string | Buffer)[] = [], waitMs = 2_000): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let settled = false;
    const done = (closedByServer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(received).toString('utf8'), closedByServer));
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (data: Buffer) => received.push(data));
    socket.on('end', () => done(true));
    socket.on('close', () => done(true));
    socket.on('error', (error) => (received.length > 0 ? done(true) : reject(error)));
    socket.write(`${head}\r\n\r\n`);
    for (const chunk of chunks) socket.write(chunk);
  });
}

/**
 * Sends `head` (which should say `Connection: close`) and the first `sent` characters of `body`,
 * so the server holds the request open; `finish` sends the rest and reads the answer.
 */
export async function halfSentRequest(url: string, head: string, body: string, sent = 5): Promise<{ finish(): Promise<RawResponse> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  // Refused early (a 409 needs no body), the server answers and closes before `finish`: listen now.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // Then the rest may find the connection closed; what the server answered still counts.
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.write(`${head}\r\n\r\n${body.slice(0, sent)}`, () => resolve()));
  return {
    async finish() {
      // Written, not ended: node:http drops a request whose client half-closes before the answer is
      // ready (a write that waits on a database server is not ready in the same turn); the server
      // closes once it has answered, as `Connection: close` asks.
      if (!socket.destroyed) socket.write(body.slice(sent));
      await closed;
      return parse(Buffer.concat(received).toString('utf8'), true);
    },
  };
}

/**
 * Sends `head` (which should say `Connection: close`) with `Expect: 100-continue` and resolves once the
 * server answers `100 Continue`: node:http says so in the same turn as it hands the request to the app,
 * so the app has begun it (a keyed create has claimed its key) before any later request is read.
 * `finish` sends the body and reads the final answer.
 */
export async function continuedRequest(url: string, head: string, body: string): Promise<{ finish(): Promise<RawResponse> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
      if (/^HTTP\/1\.1 100 [^\r]*\r\n\r\n/.test(received)) resolve();
      else if (received.includes('\r\n\r\n')) reject(new Error(`no 100 Continue: ${received}`));
    });
    socket.write(`${head}\r\nExpect: 100-continue\r\n\r\n`);
  });
  return {
    async finish() {
      socket.write(body);
      await closed;
      return parse(received.replace(/^HTTP\/1\.1 100 [^\r]*\r\n\r\n/, ''), true);
    },
  };
}

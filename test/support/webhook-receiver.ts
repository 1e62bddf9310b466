import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got: its headers, its exact body, and when. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How a receiver answers a request: a status and headers, or `hang` (never answer), or `close` (drop the connection). */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang' | 'close';

/** A webhook receiver on 127.0.0.1 that records every request and answers as the test says. */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** Requests open now (arrived, not yet answered or dropped), and the most ever open at once. */
  readonly open: number;
  readonly maxOpen: number;
  /** Connections accepted in all, and those still open. */
  readonly connections: number;
  readonly openConnections: number;
  /** Decides each answer (200 by default); sees the request and how many came before it. */
  answer: (request: Received, index: number) => Answer;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  /** The webhook-id of every request, in arrival order. */
  ids(): string[];
  close(): Promise<void>;
}

/** Starts a receiver on `port` (0: any free one). */
export async function startReceiver(port = 0, path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const waiters: (() => void)[] = [];
  let open = 0;
  let maxOpen = 0;
  let connections = 0;
  let openConnections = 0;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    get connections() {
      return connections;
    },
    get openConnections() {
      return openConnections;
    },
    answer: () => ({ status: 200 }),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} requests, expected ${count}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, count);
    },
    ids: () => received.map((request) => String(request.headers['webhook-id'])),
    close: () => {
      for (const response of hanging) response.destroy();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  const server: Server = createServer((req, res) => {
    // Open from its head until its answer is sent or its connection ends (the service gave up).
    maxOpen = Math.max(maxOpen, ++open);
    res.once('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const answer = receiver.answer(request, received.length - 1);
      if (answer === 'hang') hanging.add(res);
      else if (answer === 'close') res.destroy();
      else if (answer.delayMs === undefined) res.writeHead(answer.status, answer.headers ?? {}).end();
      else {
        hanging.add(res);
        setTimeout(() => {
          hanging.delete(res);
          if (!res.destroyed) res.writeHead(answer.status, answer.headers ?? {}).end();
        }, answer.delayMs);
      }
    });
  });
  server.on('connection', (socket) => {
    connections++;
    openConnections++;
    socket.once('close', () => openConnections--);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return Object.assign(receiver, { url: `http://127.0.0.1:${actual}${path}`, port: actual });
}

/** Verifies a request with the standardwebhooks package, as a receiver would; throws when it fails. */
export function verifyDelivery(secret: string, request: Received): unknown {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers);
}

/** Polls `check` until it returns a value other than undefined (rejects after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'a condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

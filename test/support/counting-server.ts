import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A loopback HTTP server that counts requests by path and hands them to whichever handler is current. */
export interface CountingServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** How many requests arrived for `path` (the target without its query). */
  requests(path: string): number;
  /** Answers every request from now on. */
  handle(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  /** Closes the port and cuts open connections, so nothing it holds keeps the test run alive. */
  stop(): Promise<void>;
}

/** Starts a CountingServer on a free loopback port; until a handler is set, it answers nothing. */
export async function startCountingServer(): Promise<CountingServer> {
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let current: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    current(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: (path) => counts.get(path) ?? 0,
    handle(handler) {
      current = handler;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

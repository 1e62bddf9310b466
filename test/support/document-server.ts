import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

interface Document {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A loopback HTTP server of JSON documents (a JWKS, a discovery document) that counts what it is asked. */
export interface DocumentServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Serves `body` (JSON unless it is text already) at `path` from now on. */
  serve(path: string, body: unknown, status?: number, headers?: Record<string, string>): void;
  /** From now on, takes every request and never answers it (a provider that hangs). */
  hang(): void;
  /** How many requests arrived for `path`. */
  requests(path: string): number;
  stop(): Promise<void>;
}

/** Starts a DocumentServer on a free loopback port; unknown paths are 404. */
export async function startDocumentServer(): Promise<DocumentServer> {
  const documents = new Map<string, Document>();
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let hanging = false;
  const answer = (res: ServerResponse, document: Document | undefined): void => {
    if (document === undefined) res.writeHead(404).end();
    else res.writeHead(document.status, { 'content-type': 'application/json', ...document.headers }).end(document.body);
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (!hanging) answer(res, documents.get(path));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(path, body, status = 200, headers = {}) {
      documents.set(path, { status, body: typeof body === 'string' ? body : JSON.stringify(body), headers });
    },
    hang() {
      hanging = true;
    },
    requests: (path) => counts.get(path) ?? 0,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CountingServer, startCountingServer } from './counting-server.ts';

interface Document {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A loopback HTTP server of JSON documents (a JWKS, a discovery document) that counts what it is asked. */
export interface DocumentServer extends CountingServer {
  /** Serves `body` (JSON unless it is text already) at `path` from now on. */
  serve(path: string, body: unknown, status?: number, headers?: Record<string, string>): void;
  /** From now on, takes every request and never answers it (a provider that hangs). */
  hang(): void;
  /**
   * From now on, holds every request unanswered (a slow provider) until the returned release is
   * called: it answers those held with the documents served then, and answers at once again.
   */
  hold(): () => void;
}

/** Starts a DocumentServer on a free loopback port; unknown paths are 404. */
export async function startDocumentServer(): Promise<DocumentServer> {
  const server = await startCountingServer();
  const documents = new Map<string, Document>();
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const document = documents.get(req.url ?? '/');
    if (document === undefined) res.writeHead(404).end();
    else res.writeHead(document.status, { 'content-type': 'application/json', ...document.headers }).end(document.body);
  };
  server.handle(answer);
  return {
    ...server,
    serve(path, body, status = 200, headers = {}) {
      documents.set(path, { status, body: typeof body === 'string' ? body : JSON.stringify(body), headers });
    },
    hang() {
      server.handle(() => {});
    },
    hold() {
      const held: [IncomingMessage, ServerResponse][] = [];
      server.handle((req, res) => held.push([req, res]));
      return () => {
        server.handle(answer);
        for (const [req, res] of held.splice(0)) answer(req, res);
      };
    },
  };
}

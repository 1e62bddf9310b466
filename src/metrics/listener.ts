import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE } from './exposition.ts';
import { parseRequestTarget } from '../http/request-target.ts';

/** Where the scrape text comes from: one process's registry, or the primary's sum over workers. */
export type MetricsSource = () => string | Promise<string>;

function plain(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra });
  res.end(text);
}

async function scrape(req: IncomingMessage, res: ServerResponse, source: MetricsSource): Promise<void> {
  let text: string;
  try {
    text = await source();
  } catch {
    // Nothing internal on the wire; a failing collector is a bug to find in tests, not here.
    return plain(res, 500, 'Internal Server Error\n');
  }
  res.writeHead(200, {
    'content-type': METRICS_CONTENT_TYPE,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/**
 * A request listener that serves only `/metrics` (GET and HEAD; a query string is ignored, as
 * Prometheus may add one): other methods there get 405 with `Allow`, any other path 404.
 */
export function metricsRequestListener(source: MetricsSource): RequestListener {
  return (req, res) => {
    // An absolute-form target (`GET http://host:9464/metrics`) is the same request (RFC 9112 §3.2.2).
    const { path } = parseRequestTarget(req.url ?? '/');
    if (path !== '/metrics') return plain(res, 404, 'Not Found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method Not Allowed\n', { allow: 'GET, HEAD' });
    void scrape(req, res, source);
  };
}

/** A listening metrics endpoint. */
export interface MetricsListener {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the metrics listener on its own port; resolves once listening, rejects when it cannot listen. */
export async function startMetricsListener(host: string, port: number, source: MetricsSource): Promise<MetricsListener> {
  // Loopback by default and scraped every few seconds: small limits, no rate limit, no token.
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 10_000, keepAliveTimeout: 65_000 }, metricsRequestListener(source));
  server.maxConnections = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// What the multi-process PostgreSQL tests share: a migrated database, serve processes on it, requests
// that record how they ended and how long they took, and reading the database back through psql.
import { migratePostgres } from '../../src/postgres/migrate.ts';
import { openPostgres } from '../../src/postgres/open.ts';
import { type ServeProcess, spawnServe, urlOf } from '../ops/support.ts';
import type { PostgresCluster } from '../support/postgres.ts';

/** A new database of `cluster` at this build's schema version; its URL (password included). */
export async function migratedDatabase(cluster: PostgresCluster): Promise<string> {
  const url = await cluster.createDatabase();
  const client = openPostgres(url, { poolSize: 1 });
  try {
    await migratePostgres(client);
  } finally {
    await client.end();
  }
  return url;
}

/** Serve processes on one database. */
export interface Nodes {
  servers: ServeProcess[];
  urls: string[];
  /** SIGKILLs every process still running. */
  kill(): void;
}

/** Starts `count` separate `bin/serve.js` processes on the database at `url`; resolves once each listens. */
export async function startNodes(url: string, count: number, env: Record<string, string> = {}): Promise<Nodes> {
  const servers = Array.from({ length: count }, () => spawnServe({ SVC_DATABASE_URL: url, ...env }));
  const kill = (): void => servers.forEach((server) => server.kill());
  try {
    return { servers, urls: await Promise.all(servers.map(urlOf)), kill };
  } catch (error) {
    kill();
    throw error;
  }
}

/** Log lines at level error (50) or above: a 5xx access line or an unexpected error. */
export function errorLines(servers: readonly ServeProcess[]): Record<string, unknown>[] {
  return servers.flatMap((server) => server.lines.filter((line) => Number(line['level']) >= 50));
}

/** How one request ended: status 0 when the connection failed or no answer came within the guard. */
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  /** From sending to the end of the body. */
  ms: number;
  /** Why status is 0. */
  failure?: string;
}

/** Sends a request and records how it ended; never rejects. `guardMs` only stops a hang. */
export async function send(url: string, init: RequestInit = {}, guardMs = 60_000): Promise<Answer> {
  const startedAt = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(guardMs) });
    const body = await response.text();
    return { status: response.status, headers: response.headers, body, ms: performance.now() - startedAt };
  } catch (error) {
    return { status: 0, headers: new Headers(), body: '', ms: performance.now() - startedAt, failure: String(error) };
  }
}

/** A JSON POST, recorded. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}, guardMs?: number): Promise<Answer> {
  return send(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }, guardMs);
}

/** A merge-patch PATCH, recorded. */
export function patch(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return send(url, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', ...headers }, body: JSON.stringify(body) });
}

/** The name of the database a URL points at. */
export function databaseOf(url: string): string {
  return new URL(url).pathname.slice(1);
}

/** The rows of a query run as the superuser, each split into its columns (psql's unaligned `|`). */
export async function rowsOf(cluster: PostgresCluster, url: string, query: string): Promise<string[][]> {
  const out = await cluster.sql(query, databaseOf(url));
  return out === '' ? [] : out.split('\n').map((line) => line.split('|'));
}

/** The products in the database at `url`, by id: name. */
export async function productNames(cluster: PostgresCluster, url: string): Promise<Map<number, string>> {
  const rows = await rowsOf(cluster, url, 'SELECT id, name FROM products ORDER BY id');
  return new Map(rows.map(([id, name]) => [Number(id), name ?? '']));
}

/** Resolves once `check` returns true; polls every `everyMs`, rejects after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

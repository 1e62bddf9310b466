import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from './seeded-random.ts';
import { openFileDescriptors } from './spawned-server.ts';

/** What a load run saw: requests by status, failures, and how many connections were held at once. */
export interface LoadFigures {
  requests: number;
  creates: number;
  statuses: Record<string, number>;
  errors: string[];
  /** Connections the client had open at the busiest sample. */
  connectionsHeld: number;
}

interface Answer {
  status: number;
}

/** One request over `agent` (keep-alive pool) or a fresh connection (`agent: false`). */
export function send(url: string, agent: Agent | false, method: string, path: string, body?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (agent === false) headers['connection'] = 'close';
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent, headers, timeout: 30_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.once('error', reject);
    req.end(body);
  });
}

function tally(figures: LoadFigures, answer: Answer | Error): void {
  figures.requests++;
  if (answer instanceof Error) {
    if (figures.errors.length < 20) figures.errors.push(answer.message);
    return;
  }
  figures.statuses[answer.status] = (figures.statuses[answer.status] ?? 0) + 1;
}

function openSockets(agent: Agent): number {
  let count = 0;
  for (const list of [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)]) count += list?.length ?? 0;
  return count;
}

/**
 * `connections` keep-alive clients, each sending one request after another for `durationMs`:
 * about one in four creates a product, the rest read (list, by id, ping).
 */
export async function keepAliveLoad(url: string, connections: number, durationMs: number, createShare = 0.25): Promise<LoadFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const figures: LoadFigures = { requests: 0, creates: 0, statuses: {}, errors: [], connectionsHeld: 0 };
  const until = Date.now() + durationMs;
  const sampler = setInterval(() => (figures.connectionsHeld = Math.max(figures.connectionsHeld, openSockets(agent))), 100);
  const client = async (id: number): Promise<void> => {
    const random = seededRandom(id + 1);
    for (let n = 0; Date.now() < until; n++) {
      const roll = random.next();
      let answer: Promise<Answer>;
      if (roll < createShare) {
        figures.creates++;
        answer = send(url, agent, 'POST', '/api/products', JSON.stringify({ name: `load ${id}-${n}`, priceInCents: n }));
      } else if (roll < createShare + 0.3) answer = send(url, agent, 'GET', '/api/products?limit=20');
      else if (roll < createShare + 0.6) answer = send(url, agent, 'GET', `/api/products/${1 + random.int(1000)}`);
      else answer = send(url, agent, 'GET', '/api/ping');
      tally(figures, await answer.catch((error: unknown) => error as Error));
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, (_, id) => client(id)));
  } finally {
    clearInterval(sampler);
    agent.destroy();
  }
  return figures;
}

/** `count` requests each on its own connection (`Connection: close`), `concurrency` at a time. */
export async function shortConnections(url: string, count: number, concurrency: number): Promise<LoadFigures> {
  const figures: LoadFigures = { requests: 0, creates: 0, statuses: {}, errors: [], connectionsHeld: 0 };
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < count) {
      next++;
      tally(figures, await send(url, false, 'GET', '/api/ping').catch((error: unknown) => error as Error));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return figures;
}

/** The server's descriptor count once it settles (closing sockets takes a moment), waiting at most `waitMs`. */
export async function settledDescriptors(pid: number, target: number, waitMs = 5_000): Promise<number> {
  const deadline = Date.now() + waitMs;
  let count = openFileDescriptors(pid);
  while (count > target && Date.now() < deadline) {
    await sleep(100);
    count = openFileDescriptors(pid);
  }
  return count;
}

/** The server's descriptor count once it has stopped changing (sockets of an earlier run closing). */
export async function steadyDescriptors(pid: number, waitMs = 5_000): Promise<number> {
  const deadline = Date.now() + waitMs;
  let count = openFileDescriptors(pid);
  for (let unchanged = 0; unchanged < 5 && Date.now() < deadline; ) {
    await sleep(100);
    const now = openFileDescriptors(pid);
    unchanged = now === count ? unchanged + 1 : 0;
    count = now;
  }
  return count;
}

/** Only what tells of trouble is kept from a busy server's log: 5xx, errors, a locked database. */
export function telling(line: string): boolean {
  return /"level":[56]\d|locked/i.test(line);
}

/** A log filter that notes which processes answered requests and keeps the telling lines. */
export function countingPids(pids: Set<number>): (line: string) => boolean {
  return (line) => {
    const pid = /"pid":(\d+).*"msg":"request completed"/.exec(line)?.[1];
    if (pid !== undefined) pids.add(Number(pid));
    return telling(line);
  };
}

/** How many answers were 5xx. */
export function serverErrors(figures: LoadFigures): number {
  return Object.entries(figures.statuses).reduce((sum, [status, n]) => (Number(status) >= 500 ? sum + n : sum), 0);
}

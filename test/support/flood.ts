import { Agent, request } from 'node:http';
import { generateKey } from '../../src/keys/format.ts';

/** A status and the headers a flood test looks at. */
export interface Answered {
  status: number;
  retryAfter: string | undefined;
}

// One keep-alive agent per source address, so each address keeps its own connections.
const agents = new Map<string, Agent>();
function agentFor(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: 4 });
    agents.set(localAddress, agent);
  }
  return agent;
}

/** Closes the connections of every address used so far. */
export function closeFloodAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/** GET `url` with `headers`, sent from `localAddress` (any of 127.0.0.0/8 on loopback); the body is read and dropped. */
export function getFrom(url: string, headers: Record<string, string>, localAddress: string, timeoutMs = 30_000): Promise<Answered> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress, agent: agentFor(localAddress), timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url} in ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end();
  });
}

/** What a flood sent, and how it was answered. */
export interface FloodResult {
  sent: number;
  statuses: Map<number, number>;
  seconds: number;
}

/** A flood under way: stop() waits for the requests in flight and tells what was answered. */
export interface Flood {
  stop(): Promise<FloodResult>;
}

/**
 * Invented keys in the real shape (the project's own generator: a valid checksum, an id no key has)
 * sent to `url` as fast as `concurrency` requests in flight allow, each from the next of `addresses`
 * in turn, until stop().
 */
export function startFlood(url: string, addresses: readonly string[], concurrency: number): Flood {
  const statuses = new Map<number, number>();
  let sent = 0;
  let flooding = true;
  const startedAt = performance.now();
  const sender = async (): Promise<void> => {
    while (flooding) {
      const address = addresses[sent % addresses.length] ?? '127.0.0.1';
      sent++;
      const { status } = await getFrom(url, { authorization: `Bearer ${generateKey().key}` }, address);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const senders = Promise.all(Array.from({ length: concurrency }, sender));
  return {
    async stop() {
      flooding = false;
      await senders;
      return { sent, statuses, seconds: (performance.now() - startedAt) / 1000 };
    },
  };
}

/** `count` loopback addresses from 127.0.1.1 on: as many clients as a flood wants, on one machine. */
export function loopbackAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);
}

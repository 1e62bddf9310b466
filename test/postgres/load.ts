// A steady load of creates and reads against serve processes, recording every answer, and the checks
// every outage test makes of it afterwards.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PRODUCT } from '../ops/support.ts';
import type { PostgresCluster } from '../support/postgres.ts';
import { type Answer, post, productNames, send } from './support.ts';

/** One request of the load. */
export interface Sent {
  /** Index of the node in the URLs given. */
  node: number;
  kind: 'create' | 'read';
  /** The product name a create sent: unique, so the database can be checked against the answers. */
  name: string;
  /** performance.now() when it was sent. */
  sentAt: number;
  answer: Answer;
}

/** A running load. */
export interface Load {
  readonly sent: readonly Sent[];
  /** Creates node `node` had answered 201, sent at or after `since`. */
  created(node: number, since?: number): Sent[];
  /** Resolves once `count` of the answers so far are ones `match` accepts; `what` names them in a timeout. */
  until(what: string, count: number, match: (sent: Sent) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<void>;
}

export interface LoadOptions {
  /** Concurrent request loops per node. */
  loopsPerNode?: number;
  /** Pause after each create and read pair, so a loop answered at once in an outage does not spin. */
  pauseMs?: number;
  /** The longest a request may take before it counts as a hang (status 0). */
  guardMs: number;
  /** Prefix of the product names, unique per load. */
  prefix: string;
}

/** Starts loops that each create a product, then read a page, again and again, on every node. */
export function startLoad(urls: readonly string[], options: LoadOptions): Load {
  const { loopsPerNode = 2, pauseMs = 20, guardMs, prefix } = options;
  const sent: Sent[] = [];
  let running = true;
  const loop = async (node: number, loopNo: number): Promise<void> => {
    const url = urls[node] ?? '';
    for (let seq = 0; running; seq++) {
      const name = `${prefix} ${node}-${loopNo}-${seq}`;
      let sentAt = performance.now();
      sent.push({ node, kind: 'create', name, sentAt, answer: await post(`${url}/api/products`, { ...PRODUCT, name }, {}, guardMs) });
      sentAt = performance.now();
      sent.push({ node, kind: 'read', name: '', sentAt, answer: await send(`${url}/api/products?limit=5`, {}, guardMs) });
      await sleep(pauseMs);
    }
  };
  const loops = urls.flatMap((_, node) => Array.from({ length: loopsPerNode }, (_, loopNo) => loop(node, loopNo)));
  return {
    sent,
    created: (node, since = 0) => sent.filter((s) => s.node === node && s.kind === 'create' && s.answer.status === 201 && s.sentAt >= since),
    async until(what, count, match, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (sent.filter(match).length < count) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} answers: ${what}`);
        await sleep(20);
      }
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** 503 `unavailable` with a Retry-After: what a request needing an unreachable database gets. */
export function isUnavailable(answer: Answer): boolean {
  if (answer.status !== 503 || answer.headers.get('retry-after') === null) return false;
  return (JSON.parse(answer.body) as { code?: unknown }).code === 'unavailable';
}

/**
 * What no outage may break: every answer is a success or 503 unavailable with Retry-After, within the
 * request timeout (a bound against hangs, not a speed test); every acknowledged create is in the
 * database with its name; the database holds no product the load did not send.
 */
export async function assertNothingLost(cluster: PostgresCluster, url: string, load: Load, timeoutMs: number, allowed: (sent: Sent) => boolean = () => false): Promise<void> {
  for (const sent of load.sent) {
    if (allowed(sent)) continue;
    const ok = sent.kind === 'create' ? sent.answer.status === 201 : sent.answer.status === 200;
    assert.ok(ok || isUnavailable(sent.answer), `${sent.kind} ${sent.name} on node ${sent.node}: ${sent.answer.status} ${sent.answer.failure ?? sent.answer.body}`);
    assert.ok(sent.answer.ms < timeoutMs, `${sent.kind} on node ${sent.node} answered after ${Math.round(sent.answer.ms)} ms`);
  }
  const stored = await productNames(cluster, url);
  const names = new Set(load.sent.map((sent) => sent.name));
  const prefix = load.sent[0]?.name.split(' ')[0] ?? '';
  for (const sent of load.sent.filter((s) => s.kind === 'create' && s.answer.status === 201)) {
    const id = (JSON.parse(sent.answer.body) as { id: number }).id;
    assert.equal(stored.get(id), sent.name, `acknowledged create ${sent.name} (id ${id}) is in the database`);
  }
  // A create cut off by the outage may have committed or not (its client got a 503 or no answer), but
  // nothing the load never sent may appear.
  for (const name of stored.values()) if (name.startsWith(`${prefix} `)) assert.ok(names.has(name), `unexpected product ${name}`);
}

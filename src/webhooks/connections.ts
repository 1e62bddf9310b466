import { Agent as HttpAgent, type AgentOptions, type ClientRequestArgs, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How many idle connections are kept, and for how long (docs/webhooks.md, Connections). */
export interface ConnectionLimits {
  /** Idle connections kept under one pool key, one origin at one set of addresses (the deliverer's: a webhook's most attempts in flight, SLOT_LIMITS.perWebhook). */
  perKey: number;
  /** Idle connections kept in all. */
  total: number;
  /** How long a connection may stay idle before it is closed (IDLE_MS). */
  idleMs?: number;
}

/**
 * How long an idle connection is kept: below the 5 s after which Node's and Apache's servers close
 * one (the shortest common keep-alive); a receiver that announces less (`Keep-Alive: timeout=N`) is
 * honoured, N less a second.
 */
export const IDLE_MS = 4_000;

/** What a pooled attempt adds to its request: the agent of its scheme and its pool key. */
export interface PooledRoute {
  agent: HttpAgent;
  poolKey: string;
}

// The agents' one policy: whether a connection whose exchange ended cleanly may be kept.
type MayKeep = () => boolean;

// The pool key is the agent's "name": sockets are kept and reused per key only. A request without its
// key is a bug, refused rather than pooled by Node's own names (host:port), which leave out the addresses.
function nameOf(options: ClientRequestArgs | undefined): string {
  const key = options !== undefined && 'poolKey' in options ? options.poolKey : undefined;
  if (typeof key !== 'string') throw new Error('a pooled webhook request carries its poolKey');
  return key;
}

// How long a kept socket may stay idle: `idleMs`, or less when its last answer said `Keep-Alive:
// timeout=N` (N seconds less the agent's buffer, a second). Read where Node's own keepSocketAlive reads
// it, the socket's last message; Node applies the hint only below an agent `timeout`, which is not set.
function idleTimeOf(socket: Duplex, idleMs: number, bufferMs: number): number {
  const { _httpMessage: message } = socket as { _httpMessage?: { res?: { headers: IncomingHttpHeaders } } | null };
  const header = message?.res?.headers['keep-alive'];
  const hint = typeof header === 'string' ? /^timeout=(\d+)/.exec(header)?.[1] : undefined;
  return hint === undefined ? idleMs : Math.max(1, Math.min(idleMs, Number(hint) * 1000 - bufferMs));
}

// Makes `agent` keep and reuse sockets per pool key only, and keep one only while `mayKeep` says so, for
// at most its idle time. Node's keepSocketAlive (keep-alive probes, unref; false for a receiver that
// announces a second or less) answers whether the socket may be kept, though its declared type says
// void; the socket's timeout is then its idle time, and the agent destroys a free socket whose timeout
// passes. The agent's own `timeout` option would do it at a cost on every request (a timeout listener
// added and removed on the socket each time): about a tenth of a delivery's CPU.
function keyedByPool(agent: HttpAgent, mayKeep: MayKeep, idleMs: number): void {
  const nodeKeeps = agent.keepSocketAlive.bind(agent);
  const { agentKeepAliveTimeoutBuffer: bufferMs = 1_000 } = agent as { agentKeepAliveTimeoutBuffer?: number };
  agent.getName = nameOf;
  agent.keepSocketAlive = (socket: Duplex): boolean => {
    if (!mayKeep()) return false;
    const kept: unknown = nodeKeeps(socket);
    if (kept === false) return false;
    (socket as Socket).setTimeout(idleTimeOf(socket, idleMs, bufferMs));
    return true;
  };
}

/**
 * The pool key of an attempt: its scheme, host name and port (the URL's host; the TLS server name and
 * the `Host` header follow from it) and the addresses its look-up answered and the check allowed,
 * sorted. A connection is only ever opened to one of its key's addresses, so a connection reused
 * under a key goes to an address that this attempt's own check allowed; a name that now resolves
 * elsewhere, another name on the same address, or another port or scheme never shares it.
 */
export function poolKeyOf(url: URL, addresses: readonly { address: string }[]): string {
  return `${url.protocol}//${url.host} ${addresses.map(({ address }) => address).sort().join(' ')}`;
}

/**
 * Connections to receivers kept alive between attempts (docs/webhooks.md, Connections): at most
 * `perKey` idle per pool key and `total` idle in all, each closed after `idleMs` idle. A
 * connection in use is never limited here: the deliverer's slots bound the attempts in flight, and
 * no attempt waits for another's connection. A connection whose exchange did not end cleanly (a
 * timeout, an error, an answer cut at the cap, `Connection: close`) is closed, never kept.
 */
export class ReceiverConnections {
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;
  #closed = false;

  constructor(limits: ConnectionLimits) {
    const options: AgentOptions = {
      keepAlive: true,
      maxFreeSockets: limits.perKey,
      // The most recently used first: the fewest connections stay warm, the others time out.
      scheduling: 'lifo',
    };
    const mayKeep: MayKeep = () => !this.#closed && this.idle < limits.total;
    this.#http = new HttpAgent(options);
    this.#https = new HttpsAgent(options);
    const idleMs = limits.idleMs ?? IDLE_MS;
    keyedByPool(this.#http, mayKeep, idleMs);
    keyedByPool(this.#https, mayKeep, idleMs);
  }

  /** The agent and pool key an attempt to `url`, at `addresses` just checked, is made with. */
  route(url: URL, addresses: readonly { address: string }[]): PooledRoute {
    return { agent: url.protocol === 'https:' ? this.#https : this.#http, poolKey: poolKeyOf(url, addresses) };
  }

  /** Idle connections now. */
  get idle(): number {
    let count = 0;
    for (const agent of [this.#http, this.#https]) for (const sockets of Object.values(agent.freeSockets)) count += sockets?.length ?? 0;
    return count;
  }

  /** Closes the idle connections now, and each connection in use when its attempt ends. */
  close(): void {
    this.#closed = true;
    for (const agent of [this.#http, this.#https]) {
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of [...(sockets ?? [])]) socket.destroy();
    }
  }
}

import { lookup as systemLookup } from 'node:dns/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ReceiverConnections } from './connections.ts';
import { parseRetryAfter } from './retry-after.ts';
import { checkWebhookUrl, isForbiddenAddress } from './targets.ts';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name, once per attempt. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** One attempt to deliver: where, what, and how long it may take in all. */
export interface WebhookRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** The system resolver unless given (tests give their own). */
  lookup?: Resolver;
  /** Connections kept alive between attempts (the deliverer's); without, a connection of its own, closed after the attempt. */
  connections?: ReceiverConnections;
}

/** What one attempt came to: `reason` is a short word for logs and metrics (never the URL). */
export interface AttemptResult {
  outcome: 'delivered' | 'failed' | 'gone';
  status: number | null;
  retryAfterMs: number | null;
  reason: string;
}

/** Where an attempt will connect: every address checked, or the failure that ends it before any request. */
export type AttemptPlan = { ok: true; host: string; addresses: ResolvedAddress[] } | { ok: false; result: AttemptResult };

/** The most of a receiver's answer read (and thrown away); the rest is cut off. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

const failed = (reason: string): AttemptResult => ({ outcome: 'failed', status: null, retryAfterMs: null, reason });

const resolveWithSystem: Resolver = async (host) =>
  (await systemLookup(host, { all: true, order: 'verbatim' })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

// The URL checked again (the settings may have changed since it was stored): the plan at once when
// nothing is left to resolve (a refusal, or an address for a host), else the host name to resolve.
function planWithoutLookup(url: URL, allowPrivate: boolean): AttemptPlan | { ok: 'resolve'; host: string } {
  const checked = checkWebhookUrl(url.href, allowPrivate);
  if (!checked.ok) return { ok: false, result: failed(checked.code === 'forbidden_target' ? 'forbidden_target' : 'invalid_url') };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const family = isIP(host);
  if (family !== 0) return { ok: true, host, addresses: [{ address: host, family: family === 6 ? 6 : 4 }] };
  return { ok: 'resolve', host };
}

async function resolvePlan(host: string, allowPrivate: boolean, lookup: Resolver = resolveWithSystem): Promise<AttemptPlan> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await lookup(host);
  } catch {
    return { ok: false, result: failed('dns') };
  }
  if (addresses.length === 0) return { ok: false, result: failed('dns') };
  if (!allowPrivate && addresses.some(({ address }) => isForbiddenAddress(address))) return { ok: false, result: failed('forbidden_address') };
  return { ok: true, host, addresses };
}

/**
 * Decides where an attempt connects (docs/webhooks.md, Targets): the URL checked again (the settings may
 * have changed since it was stored), then its host name resolved ONCE and every address checked. A
 * name with any forbidden address is refused whole: a public address beside a private one is a trap.
 */
export async function planAttempt(url: URL, allowPrivate: boolean, lookup?: Resolver): Promise<AttemptPlan> {
  const plan = planWithoutLookup(url, allowPrivate);
  return plan.ok === 'resolve' ? resolvePlan(plan.host, allowPrivate, lookup) : plan;
}

// Hands the connection the addresses already checked, so the socket goes where the check looked:
// no second look-up that DNS rebinding could answer differently. With `all` (Node's happy eyeballs),
// every checked address; otherwise the first.
function checkedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const usable = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const first = usable[0];
    if (first === undefined) callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 4);
    else if (options.all === true) callback(null, [...usable]);
    else callback(null, first.address, first.family);
  };
}

/** What an answer's status makes of the attempt. */
export function resultOfStatus(status: number, retryAfter: string | undefined, nowMs: number): AttemptResult {
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter, nowMs) : null;
  if (status >= 200 && status < 300) return { outcome: 'delivered', status, retryAfterMs: null, reason: '2xx' };
  if (status === 410) return { outcome: 'gone', status, retryAfterMs: null, reason: 'gone' };
  return { outcome: 'failed', status, retryAfterMs, reason: status >= 300 && status < 400 ? 'redirect' : 'status' };
}

const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ETIMEDOUT: 'timeout',
  ENETUNREACH: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  EADDRNOTAVAIL: 'unreachable',
  ENOTFOUND: 'dns',
  EPROTO: 'tls',
};

/** The short word for a failed connection or exchange: refused, reset, tls, protocol, … */
export function reasonOfError(error: unknown): string {
  const first = error instanceof AggregateError && error.errors.length > 0 ? (error.errors[0] as unknown) : error;
  const code = typeof first === 'object' && first !== null && 'code' in first ? String(first.code) : '';
  if (REASONS[code] !== undefined) return REASONS[code];
  if (/^(ERR_TLS_|ERR_SSL_)|CERT|SIGNATURE|SELF_SIGNED/.test(code)) return 'tls';
  if (code.startsWith('HPE_')) return 'protocol';
  return 'connection';
}

// Reads the answer's body up to the cap and throws it away: a kept-alive connection goes back to its
// pool only once its answer has been read to the end, and one cut at the cap is closed with it (a
// response destroyed before its end destroys its socket). `done` once the response is over (ended,
// cut off, or destroyed by the deadline).
function drain(response: IncomingMessage, done: () => void): void {
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) response.destroy();
  });
  response.on('error', () => {}); // the outcome is the status; a body cut short changes nothing
  response.on('close', done);
}

type Plan = { host: string; addresses: ResolvedAddress[] };

function requestOptions(request: WebhookRequest, plan: Plan, pooled: boolean): RequestOptions {
  const { url, body } = request;
  const secure = url.protocol === 'https:';
  return {
    method: 'POST',
    host: plan.host,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...request.headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
    // A kept-alive connection is reused only under the pool key of this attempt's own check (its name,
    // port, scheme and the addresses just allowed: connections.ts); without a pool, one connection,
    // closed after the attempt.
    ...(pooled && request.connections !== undefined ? request.connections.route(url, plan.addresses) : { agent: false }),
    // A new connection goes only to the addresses this attempt checked.
    lookup: checkedLookup(plan.addresses),
    // The certificate is checked against the name (a trailing dot is no part of it), never the address.
    ...(secure && isIP(plan.host) === 0 ? { servername: plan.host.replace(/\.$/, '') } : {}),
  };
}

// One exchange's result, and whether it failed on a reused connection before any answer: the
// receiver closed it while it was idle (the race every keep-alive client meets), so the attempt may
// be made again, once, on a connection of its own.
interface Exchange {
  result: AttemptResult;
  staleConnection: boolean;
}

// One attempt's deadline: one timer for the look-up and every exchange. When it passes, the request in
// flight is destroyed (its connection with it, never kept) and the attempt ends as a timeout. A timer
// and a flag, not an AbortSignal: a signal on each request cost node:http listeners of its own.
class Deadline {
  #passed = false;
  #request: ClientRequest | null = null;
  #onPass: (() => void) | null = null;
  readonly #timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.#timer = setTimeout(() => {
      this.#passed = true;
      this.#request?.destroy();
      this.#onPass?.();
    }, ms);
  }

  get passed(): boolean {
    return this.#passed;
  }

  /** The request the deadline destroys when it passes. */
  watch(request: ClientRequest): void {
    this.#request = request;
  }

  /** `work`'s result, or null if the deadline passes first. */
  race<T>(work: Promise<T>): Promise<T | null> {
    return new Promise((resolve, reject) => {
      this.#onPass = () => resolve(null);
      work.then(resolve, reject);
    });
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

function post(request: WebhookRequest, plan: Plan, deadline: Deadline, pooled: boolean): Promise<Exchange> {
  return new Promise((resolve) => {
    let answered: AttemptResult | null = null;
    let settled = false;
    const finish = (result: AttemptResult): void => {
      if (settled) return;
      settled = true;
      const cut = answered === null && !deadline.passed && (result.reason === 'reset' || result.reason === 'connection');
      resolve({ result, staleConnection: cut && outgoing.reusedSocket });
    };
    const send = request.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing: ClientRequest = send(requestOptions(request, plan, pooled), (response) => {
      const result = resultOfStatus(response.statusCode ?? 0, response.headers['retry-after'], Date.now());
      answered = result;
      drain(response, () => finish(result));
    });
    deadline.watch(outgoing);
    outgoing.on('error', (error) => finish(answered ?? failed(deadline.passed ? 'timeout' : reasonOfError(error))));
    outgoing.on('close', () => finish(answered ?? failed(deadline.passed ? 'timeout' : 'connection')));
    outgoing.end(request.body);
  });
}

/**
 * Makes one attempt (docs/webhooks.md, Deliveries): the host resolved once and checked, the POST sent to
 * a checked address (over a connection of `connections` kept under this check's pool key, or a new
 * one; sent again once on a new one if a reused connection turns out closed), redirects never
 * followed, the answer's body read up to 64 KiB and dropped, all of it within `timeoutMs`. Never
 * throws: every failure is an AttemptResult.
 */
export async function sendWebhook(request: WebhookRequest): Promise<AttemptResult> {
  const deadline = new Deadline(request.timeoutMs);
  try {
    const planned = planWithoutLookup(request.url, request.allowPrivate);
    const plan = planned.ok === 'resolve' ? await deadline.race(resolvePlan(planned.host, request.allowPrivate, request.lookup)) : planned;
    if (plan === null) return failed('timeout');
    if (!plan.ok) return plan.result;
    const first = await post(request, plan, deadline, true);
    if (!first.staleConnection || deadline.passed) return first.result;
    return (await post(request, plan, deadline, false)).result;
  } catch (error) {
    return failed(reasonOfError(error));
  } finally {
    deadline.clear();
  }
}

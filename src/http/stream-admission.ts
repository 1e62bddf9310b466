import { HttpError } from './errors.ts';

/** How many streamed replies may be open at once in a process: per client, and of all clients together. */
export interface StreamQuota {
  /** SVC_STREAMS_PER_CALLER: a caller (key, token `sub`), or an address when the service is open. */
  perClient: number;
  /** SVC_MAX_STREAMS, below SVC_MAX_CONNECTIONS: what is left over always serves other requests. */
  total: number;
}

/** Which limit refused a stream: the client's own (429) or the process's (503). */
export type StreamLimit = 'caller' | 'process';

/** Every stream limit, in the order the refusal counter lists them. */
export const STREAM_LIMITS: readonly StreamLimit[] = ['caller', 'process'];

/**
 * The Retry-After of a refused stream, in seconds. No moment is known when a place frees (a stream
 * lasts as long as its reader wants); a few seconds lets a client that retries do so without
 * hammering (docs/decisions.md).
 */
export const STREAM_RETRY_AFTER_S = 5;

// A refusal closes its connection: a client turned away must not keep a connection that ordinary
// requests need (a stream is one connection of SVC_MAX_CONNECTIONS, and so is an idle keep-alive).
function refusal(code: 'rate_limited' | 'unavailable', detail: string): HttpError {
  return new HttpError(code, { detail, headers: { 'retry-after': String(STREAM_RETRY_AFTER_S), connection: 'close' } });
}

/**
 * Counts the open streams of a process, per client and in all (docs/events.md, The live stream): a
 * stream is admitted before its head is sent and counted until it ends, whatever ends it.
 */
export class StreamAdmission {
  readonly #quota: StreamQuota;
  readonly #onRefused: (limit: StreamLimit) => void;
  readonly #byClient = new Map<string, number>();
  #open = 0;

  constructor(quota: StreamQuota, onRefused: (limit: StreamLimit) => void = () => {}) {
    this.#quota = quota;
    this.#onRefused = onRefused;
  }

  /** Streams open now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Admits one more stream of `client`, and returns what to call once it has ended (a second call does
   * nothing); throws 429 `rate_limited` past the client's limit, 503 `unavailable` past the process's.
   */
  admit(client: string): () => void {
    const held = this.#byClient.get(client) ?? 0;
    if (held >= this.#quota.perClient) {
      this.#onRefused('caller');
      throw refusal('rate_limited', `This caller already has ${held} live streams open, the most one caller may hold; close one, or retry later.`);
    }
    if (this.#open >= this.#quota.total) {
      this.#onRefused('process');
      throw refusal('unavailable', 'This process holds as many live streams as it may; retry later (another process may have room).');
    }
    this.#open += 1;
    this.#byClient.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open -= 1;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left === 0) this.#byClient.delete(client);
      else this.#byClient.set(client, left);
    };
  }
}

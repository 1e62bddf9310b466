// The writers of the outbox crash test (events-crash.test.ts) and the journal of every request
// they sent, so a failure can be judged from what it prints: what each request was answered, when,
// and which were left in doubt.
import { type Milestone, milestone } from './milestone.ts';

type Json = Record<string, unknown>;

/** What a writer asks of a product. */
export type Kind = 'create' | 'change' | 'delete';

/** One request a writer sent, and what came of it. */
export interface Sent {
  round: number;
  writer: number;
  kind: Kind;
  /** The product it was about (null for a create that got no 201). */
  product: number | null;
  /** The status, or how the request ended without one. */
  answer: number | string;
  /** When the answer (or its absence) was known, in ms since the run began. */
  at: number;
}

/** One life of the server: when it listened, first acknowledged a write, was killed, and how it ended. */
export interface RoundTimes {
  listening: number;
  firstAck: number | null;
  /** Instants of the database read and found whole before the kill. */
  snapshots: number;
  killed: number | null;
  exit: number | string | null;
}

/**
 * A request is in doubt when its change may or may not have happened: it got no answer (the kill),
 * or only part of one, or a 503 (the service could not finish it; on PostgreSQL a connection lost
 * during a commit). It is neither acknowledged nor a failure.
 */
export function inDoubt(sent: Sent): boolean {
  return typeof sent.answer !== 'number' || sent.answer === 503;
}

/** Every request of a run, the changes acknowledged per product (in order), and the rounds' times. */
export class Journal {
  readonly started = performance.now();
  readonly sent: Sent[] = [];
  readonly acked = new Map<number, string[]>();
  readonly rounds: RoundTimes[] = [];
  #firstAck: Milestone = milestone();

  now(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }

  /** A new round, listening now; `firstAck` is reached with its first acknowledged change. */
  beginRound(): { times: RoundTimes; firstAck: Milestone } {
    const times: RoundTimes = { listening: this.now(), firstAck: null, snapshots: 0, killed: null, exit: null };
    this.rounds.push(times);
    this.#firstAck = milestone();
    return { times, firstAck: this.#firstAck };
  }

  /** The number of acknowledged changes (each create, change and delete answered as asked). */
  acknowledged(): number {
    return [...this.acked.values()].reduce((sum, kinds) => sum + kinds.length, 0);
  }

  ack(product: number, kind: string): void {
    const kinds = this.acked.get(product) ?? [];
    kinds.push(kind);
    this.acked.set(product, kinds);
    const round = this.rounds.at(-1);
    if (round !== undefined && round.firstAck === null) {
      round.firstAck = this.now();
      this.#firstAck.reach();
    }
  }

  /** The rounds, the answers counted by status per round, and every request left in doubt. */
  summary(): string {
    const perRound = this.rounds.map((times, round) => {
      const answers = new Map<string, number>();
      for (const sent of this.sent.filter((s) => s.round === round)) {
        const key = `${sent.kind} ${typeof sent.answer === 'number' ? sent.answer : 'no answer'}`;
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
      return { round, ...times, answers: Object.fromEntries(answers) };
    });
    return `rounds: ${JSON.stringify(perRound)}\nin doubt: ${JSON.stringify(this.sent.filter(inDoubt))}`;
  }

  /** Every request about one product. */
  story(product: number): string {
    return JSON.stringify(this.sent.filter((sent) => sent.product === product));
  }
}

/** A request that got no answer, or only part of one: the writer stops (the server is gone). */
const NO_ANSWER = Symbol('no answer');
/** A 503: in doubt, and the server is still there, so the writer goes on with another product. */
const UNAVAILABLE = Symbol('503');

// The body of the answer asked for; any other status than that or 503 is a bug, and fails the test.
async function send(journal: Journal, sent: Omit<Sent, 'answer' | 'at'>, request: () => Promise<Response>, expected: number): Promise<Json | typeof NO_ANSWER | typeof UNAVAILABLE> {
  let status: number | undefined;
  try {
    const response = await request();
    status = response.status;
    const text = await response.text();
    const body = (status === expected && text !== '' ? JSON.parse(text) : {}) as Json;
    journal.sent.push({ ...sent, product: sent.product ?? (body['id'] as number | undefined) ?? null, answer: status, at: journal.now() });
    if (status === 503) return UNAVAILABLE;
    if (status !== expected) throw new Error(`${sent.kind} answered ${status}: ${text}`);
    return body;
  } catch (error) {
    if (/ answered /.test((error as Error).message)) throw error;
    // Any other error is the connection's: no answer, or part of one (fetch rejects with a TypeError).
    const how = `${status === undefined ? '' : `${status}, then `}${String(error)} (${String((error as Error).cause ?? 'no cause')})`;
    journal.sent.push({ ...sent, answer: how, at: journal.now() });
    return NO_ANSWER;
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * One writer: creates (some keyed), changes and deletes products until a request gets no answer.
 * A change or delete is sent only once the step before it was acknowledged; after a 503 the writer
 * leaves that product as it is and starts another.
 */
export async function writer(url: string, round: number, id: number, journal: Journal): Promise<void> {
  const base = { round, writer: id };
  for (let n = 0; ; n++) {
    const keyed = n % 3 === 0 ? { 'idempotency-key': `crash-${round}-${id}-${n}-${Math.random()}` } : {};
    const body = JSON.stringify({ name: `r${round} w${id} n${n}`, priceInCents: n });
    const created = await send(journal, { ...base, kind: 'create', product: null }, () => fetch(`${url}/api/products`, { method: 'POST', headers: { ...JSON_HEADERS, ...keyed }, body }), 201);
    if (created === NO_ANSWER) return;
    if (created === UNAVAILABLE) continue;
    const product = created['id'] as number;
    journal.ack(product, 'created');
    const target = `${url}/api/products/${product}`;
    const changed = await send(journal, { ...base, kind: 'change', product }, () => fetch(target, { method: 'PATCH', headers: JSON_HEADERS, body: JSON.stringify({ priceInCents: n + 1 }) }), 200);
    if (changed === NO_ANSWER) return;
    if (changed === UNAVAILABLE) continue;
    journal.ack(product, 'updated');
    if (n % 2 === 0) continue;
    const deleted = await send(journal, { ...base, kind: 'delete', product }, () => fetch(target, { method: 'DELETE' }), 204);
    if (deleted === NO_ANSWER) return;
    if (deleted !== UNAVAILABLE) journal.ack(product, 'deleted');
  }
}

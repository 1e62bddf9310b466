// The writers of the outbox crash test (events-crash.test.ts) and the journal of every request
// they sent, so a failure can be judged from what it prints: what each request was answered, when,
// and which were left without an answer by the kill.

type Json = Record<string, unknown>;

/** What a writer asks of a product. */
export type Kind = 'create' | 'change' | 'delete';

/** One request a writer sent, and what came of it. */
export interface Sent {
  round: number;
  writer: number;
  kind: Kind;
  /** The product it was about (null for a create that got no answer). */
  product: number | null;
  /** The status, or how the request ended without one (in doubt). */
  answer: number | string;
  /** When the answer (or its absence) was known, in ms since the run began. */
  at: number;
}

/** One life of the server: when it listened, first acknowledged a write, was killed, and how it ended. */
export interface RoundTimes {
  listening: number;
  firstAck: number | null;
  killed: number | null;
  exit: number | string | null;
}

/** Every request of a run, the changes acknowledged per product (in order), and the rounds' times. */
export class Journal {
  readonly started = performance.now();
  readonly sent: Sent[] = [];
  readonly acked = new Map<number, string[]>();
  readonly rounds: RoundTimes[] = [];

  now(): number {
    return Math.round(performance.now() - this.started);
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
    if (round !== undefined && round.firstAck === null) round.firstAck = this.now();
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
    const inDoubt = this.sent.filter((sent) => typeof sent.answer !== 'number');
    return `rounds: ${JSON.stringify(perRound)}\nin doubt: ${JSON.stringify(inDoubt)}`;
  }

  /** Every request about one product. */
  story(product: number): string {
    return JSON.stringify(this.sent.filter((sent) => sent.product === product));
  }
}

/** What a request came to: the body of the answer asked for, or undefined when none came. */
async function send(journal: Journal, sent: Omit<Sent, 'answer' | 'at'>, request: () => Promise<Response>, expected: number): Promise<Json | undefined> {
  let status: number | undefined;
  try {
    const response = await request();
    status = response.status;
    const text = await response.text();
    const body = (text === '' ? {} : JSON.parse(text)) as Json;
    const product = sent.product ?? (status === 201 ? (body['id'] as number) : null);
    journal.sent.push({ ...sent, product, answer: status, at: journal.now() });
    if (status !== expected) throw new Error(`${sent.kind} answered ${status}: ${text}`);
    return body;
  } catch (error) {
    if (/ answered /.test((error as Error).message)) throw error;
    // The kill: no answer, or only part of one.
    const how = `${status === undefined ? '' : `${status} then `}${String(error)} (${String((error as Error).cause ?? 'no cause')})`;
    journal.sent.push({ ...sent, answer: how, at: journal.now() });
    return undefined;
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** One writer: creates (some keyed), changes and deletes products until a request gets no answer. */
export async function writer(url: string, round: number, id: number, journal: Journal): Promise<void> {
  const base = { round, writer: id };
  for (let n = 0; ; n++) {
    const keyed = n % 3 === 0 ? { 'idempotency-key': `crash-${round}-${id}-${n}-${Math.random()}` } : {};
    const body = JSON.stringify({ name: `r${round} w${id} n${n}`, priceInCents: n });
    const created = await send(journal, { ...base, kind: 'create', product: null }, () => fetch(`${url}/api/products`, { method: 'POST', headers: { ...JSON_HEADERS, ...keyed }, body }), 201);
    if (created === undefined) return;
    const product = created['id'] as number;
    journal.ack(product, 'created');
    const change = () => fetch(`${url}/api/products/${product}`, { method: 'PATCH', headers: JSON_HEADERS, body: JSON.stringify({ priceInCents: n + 1 }) });
    if ((await send(journal, { ...base, kind: 'change', product }, change, 200)) === undefined) return;
    journal.ack(product, 'updated');
    if (n % 2 === 0) continue;
    if ((await send(journal, { ...base, kind: 'delete', product }, () => fetch(`${url}/api/products/${product}`, { method: 'DELETE' }), 204)) === undefined) return;
    journal.ack(product, 'deleted');
  }
}

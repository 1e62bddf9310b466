import cluster, { type Worker } from 'node:cluster';
import { cumulativePart, mergeSnapshots } from './aggregate.ts';
import { type FamilySnapshot, renderExposition } from './exposition.ts';
import type { Registry } from './registry.ts';

const REQUEST = 'svc:metrics-request';
const RESPONSE = 'svc:metrics-response';

/** How long a scrape waits for workers; one that has not answered by then is reported, not waited for. */
export const WORKER_ANSWER_TIMEOUT_MS = 2_000;

interface Answer {
  type: typeof RESPONSE;
  id: number;
  families: FamilySnapshot[];
}

function isAnswer(message: unknown): message is Answer {
  const m = message as Partial<Answer> | null;
  return typeof m === 'object' && m !== null && m.type === RESPONSE && typeof m.id === 'number' && Array.isArray(m.families);
}

/** In a worker: answers the primary's scrape requests with this process's families. Returns a stop function. */
export function answerPrimaryScrapes(registry: Registry): () => void {
  const onMessage = (message: unknown): void => {
    const m = message as { type?: unknown; id?: unknown } | null;
    if (typeof m !== 'object' || m === null || m.type !== REQUEST || typeof m.id !== 'number') return;
    process.send?.({ type: RESPONSE, id: m.id, families: registry.snapshot() } satisfies Answer);
  };
  process.on('message', onMessage);
  return () => {
    process.off('message', onMessage);
  };
}

interface Pending {
  waiting: Set<number>;
  answers: Map<number, FamilySnapshot[]>;
  done(): void;
}

/**
 * In the primary: one scrape for the whole machine. Asks every connected worker for its families
 * over IPC and sums them with the primary's own. A worker that does not answer within the timeout
 * is counted in `metrics_scrape_workers{state="timed_out"}` and stands in with the cumulative part
 * of its last answer; a worker that died leaves its last cumulative part behind, so summed counters
 * never go backwards when workers are replaced.
 */
export class ClusterScraper {
  readonly #own: Registry;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, Pending>();
  readonly #last = new Map<number, FamilySnapshot[]>();
  #retired: FamilySnapshot[] = [];
  #nextId = 0;

  constructor(own: Registry, timeoutMs = WORKER_ANSWER_TIMEOUT_MS) {
    this.#own = own;
    this.#timeoutMs = timeoutMs;
    cluster.on('message', (worker, message) => this.#onMessage(worker, message));
    cluster.on('exit', (worker) => {
      const last = this.#last.get(worker.id);
      this.#last.delete(worker.id);
      if (last !== undefined) this.#retired = mergeSnapshots([this.#retired, cumulativePart(last)]);
    });
  }

  /** One scrape of the primary and every worker, as exposition text. */
  async text(): Promise<string> {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
    const answers = await this.#ask(workers);
    const parts: FamilySnapshot[][] = [this.#own.snapshot(), this.#retired];
    let timedOut = 0;
    for (const worker of workers) {
      const answer = answers.get(worker.id);
      if (answer !== undefined) {
        this.#last.set(worker.id, answer);
        parts.push(answer);
      } else {
        timedOut++;
        parts.push(cumulativePart(this.#last.get(worker.id) ?? []));
      }
    }
    const status: FamilySnapshot = {
      type: 'gauge',
      name: 'metrics_scrape_workers',
      help: 'Workers asked in this scrape, by whether they answered in time.',
      merge: 'sum',
      series: [
        { labels: 'state="answered"', value: workers.length - timedOut },
        { labels: 'state="timed_out"', value: timedOut },
      ],
    };
    return renderExposition([...mergeSnapshots(parts), status]);
  }

  #ask(workers: readonly Worker[]): Promise<Map<number, FamilySnapshot[]>> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const pending: Pending = { waiting: new Set(workers.map((w) => w.id)), answers: new Map(), done: () => {} };
      const timer = setTimeout(() => pending.done(), this.#timeoutMs);
      pending.done = () => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(pending.answers);
      };
      this.#pending.set(id, pending);
      for (const worker of workers) worker.send({ type: REQUEST, id }, (error: Error | null) => error !== null && this.#forget(id, worker.id));
      if (pending.waiting.size === 0) pending.done();
    });
  }

  // A worker that cannot be asked (it is exiting) is not waited for.
  #forget(id: number, workerId: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    pending.waiting.delete(workerId);
    if (pending.waiting.size === 0) pending.done();
  }

  #onMessage(worker: Worker, message: unknown): void {
    if (!isAnswer(message)) return;
    const pending = this.#pending.get(message.id);
    // A late answer to a scrape that has already been sent is dropped; the next scrape asks again.
    if (pending === undefined || !pending.waiting.has(worker.id)) return;
    pending.answers.set(worker.id, message.families);
    this.#forget(message.id, worker.id);
  }
}

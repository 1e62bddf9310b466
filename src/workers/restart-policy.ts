// More deaths than workers × DEATHS_PER_WORKER within DEATH_WINDOW_MS is a crash loop, not bad luck.
const DEATH_WINDOW_MS = 60_000;
const DEATHS_PER_WORKER = 5;
// A worker that dies before it ever listens failed at start-up (port taken, database gone); three
// in a row will not go better the fourth time.
const STARTUP_FAILURES_IN_A_ROW = 3;
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 10_000;

/** What to do after a worker died: replace it after `delayMs`, or give up for `reason`. */
export type RestartDecision = { giveUp: false; delayMs: number } | { giveUp: true; reason: string };

/** The delay before a replacement: doubles with each recent death, from 100 ms up to 10 s. */
export function restartDelayMs(recentDeaths: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, recentDeaths - 1));
}

/** Decides, death by death, whether the primary replaces a worker (with back-off) or gives up. */
export class RestartPolicy {
  readonly #maxDeaths: number;
  readonly #now: () => number;
  #deaths: number[] = [];
  #startupFailures = 0;

  constructor(workers: number, now: () => number = Date.now) {
    this.#maxDeaths = workers * DEATHS_PER_WORKER;
    this.#now = now;
  }

  /** A worker reached `listening`: start-up works, so earlier start-up failures were transient. */
  listened(): void {
    this.#startupFailures = 0;
  }

  /** Records a death; `listened` says whether that worker had ever listened. */
  died(listened: boolean): RestartDecision {
    const now = this.#now();
    this.#deaths = this.#deaths.filter((at) => at > now - DEATH_WINDOW_MS);
    this.#deaths.push(now);
    this.#startupFailures = listened ? 0 : this.#startupFailures + 1;
    if (this.#startupFailures >= STARTUP_FAILURES_IN_A_ROW) {
      return { giveUp: true, reason: `${this.#startupFailures} workers in a row died before listening` };
    }
    if (this.#deaths.length > this.#maxDeaths) {
      return { giveUp: true, reason: `${this.#deaths.length} worker deaths within ${DEATH_WINDOW_MS / 1000} s` };
    }
    return { giveUp: false, delayMs: restartDelayMs(this.#deaths.length) };
  }
}

import type { DueDelivery } from './model.ts';

/** The limits of one process's attempts (docs/webhooks.md, Operating deliveries). */
export interface SlotLimits {
  /** Attempts in flight at most (256). */
  total: number;
  /** Attempts in flight to one webhook at most (4). */
  perWebhook: number;
  /** An attempt in flight for longer than this makes its webhook suspect: its receiver is slow or does not answer (1 s). */
  slowMs: number;
}

/** The default limits. Suspect webhooks take at most half of `total`. */
export const SLOT_LIMITS: SlotLimits = { total: 256, perWebhook: 4, slowMs: 1_000 };

/** What the next claim may take, and what it must leave out. */
export interface ClaimPlan {
  /** Attempts that may begin. */
  free: number;
  /** Of those, how many may go to suspect webhooks. */
  suspectFree: number;
  /** Webhooks at their limit in this process (or suspect while the suspect share is full): nothing more of theirs. */
  excluded: number[];
  /** Webhooks this process knows to be slow (an attempt in flight past `slowMs`): a claim serves them after the others. */
  slow: number[];
}

// One webhook's attempts in flight here: when each began, and whether its last attempt failed (null: none recorded yet).
interface Flight {
  startedAt: number[];
  lastFailed: boolean | null;
}

/**
 * One process's attempts in flight, and the policy of its claims. A webhook is suspect when its last
 * attempt failed or an attempt to it has been in flight for more than `slowMs`; suspect webhooks take at
 * most half the slots, so receivers that answer always find some free however many hang. No webhook
 * has more than `perWebhook` attempts in flight, and one with no attempt recorded yet only one, until
 * it has answered once: a crowd of new webhooks that never answer cannot fill the slots before they
 * are known to be slow.
 */
export class AttemptSlots {
  readonly #limits: SlotLimits;
  readonly #flights = new Map<number, Flight>();
  #size = 0;

  constructor(limits: SlotLimits = SLOT_LIMITS) {
    this.#limits = limits;
  }

  /** Attempts in flight. */
  get size(): number {
    return this.#size;
  }

  /** Counts an attempt to `webhookId` begun at `now`; returns what ends it, told whether it failed. */
  begin(webhookId: number, lastFailed: boolean | null, now: number): (failed: boolean) => void {
    const flight = this.#flights.get(webhookId) ?? { startedAt: [], lastFailed };
    this.#flights.set(webhookId, flight);
    // What the claim read is the newest word on it (another process may have recorded an attempt since).
    flight.lastFailed = lastFailed;
    flight.startedAt.push(now);
    this.#size++;
    return (failed) => {
      flight.startedAt.splice(flight.startedAt.indexOf(now), 1);
      flight.lastFailed = failed;
      this.#size--;
      if (flight.startedAt.length === 0) this.#flights.delete(webhookId);
    };
  }

  /** What a claim at `now` may take. */
  plan(now: number): ClaimPlan {
    let suspectInFlight = 0;
    const full: number[] = [];
    const slow: number[] = [];
    for (const [webhookId, flight] of this.#flights) {
      const isSlow = this.#slow(flight, now);
      if (isSlow) slow.push(webhookId);
      if (isSlow || flight.lastFailed === true) suspectInFlight += flight.startedAt.length;
      if (flight.startedAt.length >= this.#limitOf(flight.lastFailed)) full.push(webhookId);
    }
    const free = Math.max(0, this.#limits.total - this.#size);
    const suspectFree = Math.min(free, Math.max(0, Math.floor(this.#limits.total / 2) - suspectInFlight));
    const excluded = suspectFree > 0 ? full : [...new Set([...full, ...slow])];
    return { free, suspectFree, excluded, slow };
  }

  /**
   * Picks from `due` what fits the plan: webhooks that are not suspect first, then the oldest due; no
   * webhook past its limit, counting what it has in flight.
   */
  pick(due: readonly DueDelivery[], plan: ClaimPlan): DueDelivery[] {
    const slow = new Set(plan.slow);
    const suspect = (candidate: DueDelivery): boolean => candidate.lastAttemptFailed === true || slow.has(candidate.webhookId);
    const ordered = [...due].sort((a, b) => Number(suspect(a)) - Number(suspect(b)) || a.dueAt - b.dueAt || a.seq - b.seq);
    const taken = new Map<number, number>();
    const picked: DueDelivery[] = [];
    let suspectTaken = 0;
    for (const candidate of ordered) {
      if (picked.length >= plan.free) break;
      const isSuspect = suspect(candidate);
      if (isSuspect && suspectTaken >= plan.suspectFree) continue;
      const count = (this.#flights.get(candidate.webhookId)?.startedAt.length ?? 0) + (taken.get(candidate.webhookId) ?? 0);
      if (count >= this.#limitOf(candidate.lastAttemptFailed)) continue;
      taken.set(candidate.webhookId, (taken.get(candidate.webhookId) ?? 0) + 1);
      if (isSuspect) suspectTaken++;
      picked.push(candidate);
    }
    return picked;
  }

  /** How many more attempts `webhookId` may have in flight now, its last attempt having failed or not (null: none recorded yet). */
  room(webhookId: number, lastFailed: boolean | null): number {
    return Math.max(0, this.#limitOf(lastFailed) - (this.#flights.get(webhookId)?.startedAt.length ?? 0));
  }

  #limitOf(lastFailed: boolean | null): number {
    return lastFailed === null ? 1 : this.#limits.perWebhook;
  }

  #slow(flight: Flight, now: number): boolean {
    return flight.startedAt.some((startedAt) => now - startedAt > this.#limits.slowMs);
  }
}

import { randomInt } from 'node:crypto';
import type { ClaimedDelivery, DueDelivery } from './model.ts';
import type { DeliveryRepository } from './repository.ts';
import type { AttemptSlots } from './slots.ts';

/** What a claim takes, and what it tells of what it left. */
export interface Claim {
  claimed: ClaimedDelivery[];
  /** A claim made at once could take more: the read stopped at its limit of webhooks, or another process took some of the picked. */
  again: boolean;
  /** Deliveries were left due: read and not taken, or a webhook's read as full as asked (it may have more). */
  backlog: boolean;
}

/** How a claim leases: its attempts' timeout, and the margin to record an outcome after it. */
export interface ClaimLease {
  timeoutMs: number;
  marginMs: number;
}

// What a claim asked for and read, to tell what it left.
class ClaimRead {
  readonly asked = new Map<number, number>();
  due: readonly DueDelivery[] = [];
  picked = 0;

  // Whether a webhook's read came back as full as asked: it may have more due.
  someFull(): boolean {
    const counts = new Map<number, number>();
    for (const { webhookId } of this.due) counts.set(webhookId, (counts.get(webhookId) ?? 0) + 1);
    return [...this.asked].some(([webhookId, asked]) => asked > 0 && (counts.get(webhookId) ?? 0) >= asked);
  }
}

/**
 * One claim at `now`, in the write transaction of `deliveries`: the slots' plan (the webhooks that
 * answer first, at most `perWebhook` in flight to one, half the slots for suspect ones), a read of no
 * more than each webhook's room, a pick within the plan, and the picked taken under a lease of the
 * attempt's timeout and the margin. Says whether another claim now could take more (`again`), and
 * whether it left deliveries due (`backlog`: the next claim need not ask first whether any is).
 */
export async function claimWithin(deliveries: DeliveryRepository, slots: AttemptSlots, perWebhook: number, lease: ClaimLease, now: number): Promise<Claim> {
  const plan = slots.plan(now);
  if (plan.free === 0) return { claimed: [], again: false, backlog: false };
  const read = new ClaimRead();
  const request = {
    now, excludeWebhooks: plan.excluded, slowWebhooks: plan.slow, withFailing: plan.suspectFree > 0, webhooks: plan.free, perWebhook,
    roomOf(webhookId: number, lastFailed: boolean | null): number {
      const room = Math.min(perWebhook, slots.room(webhookId, lastFailed));
      read.asked.set(webhookId, room);
      return room;
    },
    leaseUntil: now + lease.timeoutMs + lease.marginMs, claimToken: randomInt(1, 2 ** 47),
  };
  const claimed = await deliveries.claim(request, (due) => {
    const picked = slots.pick(due, plan);
    Object.assign(read, { due, picked: picked.length });
    return picked;
  });
  const cut = new Set(read.due.map((delivery) => delivery.webhookId)).size >= plan.free;
  return {
    claimed,
    again: claimed.length > 0 && (cut || claimed.length < read.picked),
    backlog: read.due.length > claimed.length || read.someFull(),
  };
}

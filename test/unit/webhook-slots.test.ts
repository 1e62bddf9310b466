import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DueDelivery } from '../../src/webhooks/model.ts';
import { AttemptSlots, SLOT_LIMITS } from '../../src/webhooks/slots.ts';

const LIMITS = { total: 16, perWebhook: 4, slowMs: 1_000 };
let seq = 0;
// `count` due deliveries of a webhook, due at `dueAt`, whose last attempt failed or not (null: none recorded).
const due = (webhookId: number, count: number, lastAttemptFailed: boolean | null, dueAt = 0): DueDelivery[] =>
  Array.from({ length: count }, () => ({ seq: ++seq, webhookId, dueAt, lastAttemptFailed }));
const perWebhook = (picked: readonly DueDelivery[]): Record<number, number> =>
  picked.reduce<Record<number, number>>((counts, { webhookId }) => ({ ...counts, [webhookId]: (counts[webhookId] ?? 0) + 1 }), {});
// Claims what the plan allows from `candidates` and begins each pick, as the deliverer does.
function claim(slots: AttemptSlots, candidates: readonly DueDelivery[], now: number): DueDelivery[] {
  const picked = slots.pick(candidates, slots.plan(now));
  for (const delivery of picked) slots.begin(delivery.webhookId, delivery.lastAttemptFailed, now);
  return picked;
}

test('the default limits: 256 attempts in flight, 4 to one webhook', () => {
  assert.deepEqual([SLOT_LIMITS.total, SLOT_LIMITS.perWebhook], [256, 4]);
});

test('a webhook with 3 attempts in flight is given 1 more, never 4: the limit counts what is in flight, across claims', () => {
  const slots = new AttemptSlots(LIMITS);
  assert.equal(claim(slots, due(1, 3, false), 0).length, 3);
  assert.deepEqual(perWebhook(claim(slots, [...due(1, 4, false), ...due(2, 4, false)], 10)), { 1: 1, 2: 4 });
  assert.deepEqual(claim(slots, [...due(1, 4, false), ...due(2, 4, false)], 20), []);
  assert.deepEqual(slots.plan(30).excluded.sort(), [1, 2]);
  assert.equal(slots.size, 8);
});

test('an attempt that ends frees its place: the webhook may have 4 again, not 5', () => {
  const slots = new AttemptSlots(LIMITS);
  const ends = due(1, 4, false).map((delivery) => slots.begin(delivery.webhookId, false, 0));
  ends[0]?.(false);
  assert.equal(claim(slots, due(1, 4, false), 10).length, 1);
  assert.equal(slots.size, 4);
});

test('a webhook with no attempt recorded yet has one in flight at a time, until it has answered once', () => {
  const slots = new AttemptSlots(LIMITS);
  const [first] = claim(slots, due(7, 4, null), 0);
  assert.ok(first !== undefined);
  assert.deepEqual(claim(slots, due(7, 4, null), 10), []);
  assert.deepEqual(slots.plan(10).excluded, [7]);
});

test('webhooks whose last attempt failed take at most half the slots; those that answer still get the rest', () => {
  const slots = new AttemptSlots(LIMITS);
  const failing = [1, 2, 3, 4].flatMap((webhookId) => due(webhookId, 4, true));
  assert.equal(claim(slots, failing, 0).length, 8, 'half of 16');
  const plan = slots.plan(0);
  assert.equal(plan.suspectFree, 0);
  assert.equal(plan.free, 8);
  assert.deepEqual(claim(slots, [...due(1, 4, true), ...due(5, 4, true)], 0), [], 'no more for any webhook whose last attempt failed');
  assert.deepEqual(perWebhook(claim(slots, [...due(5, 4, true), ...due(6, 4, false), ...due(7, 4, false)], 0)), { 6: 4, 7: 4 });
  assert.equal(slots.size, 16);
});

test('an attempt in flight longer than slowMs makes its webhook suspect: served after the others, and counted in their half', () => {
  const slots = new AttemptSlots(LIMITS);
  claim(slots, [1, 2, 3, 4, 5, 6, 7, 8].flatMap((webhookId) => due(webhookId, 1, false)), 0);
  assert.deepEqual(slots.plan(1_000).slow, [], 'not slow at slowMs');
  const plan = slots.plan(1_001);
  assert.equal(plan.slow.length, 8);
  assert.equal(plan.suspectFree, 0, 'eight slow attempts fill the half of 16');
  assert.deepEqual(plan.excluded.sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
  // The oldest due first among equals, but a webhook that answers before a suspect one whatever their age.
  const picked = slots.pick([...due(1, 1, false, 0), ...due(9, 1, false, 500), ...due(10, 1, false, 100)], { ...plan, suspectFree: 8 });
  assert.deepEqual(picked.map((delivery) => delivery.webhookId), [10, 9, 1]);
});

test('never more than the free slots in all', () => {
  const slots = new AttemptSlots({ ...LIMITS, total: 6 });
  assert.equal(claim(slots, [1, 2, 3].flatMap((webhookId) => due(webhookId, 4, false)), 0).length, 6);
  assert.equal(slots.plan(0).free, 0);
  assert.deepEqual(slots.pick(due(4, 1, false), slots.plan(0)), []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventRepository } from '../../src/events/repository.ts';
import { startEventRetention } from '../../src/events/retention.ts';
import { eventually } from '../support/assertions.ts';

// A repository with `backlog` expired events, deleting at most a step's worth per call.
function fakeEvents(backlog: number): { events: EventRepository; calls: number[] } {
  const calls: number[] = [];
  let left = backlog;
  const events: EventRepository = {
    readAfter: () => Promise.resolve({ kind: 'events', events: [] }),
    head: () => Promise.resolve(null),
    isExpired: () => Promise.resolve(false),
    async deleteExpired(maxRows) {
      const deleted = Math.min(maxRows, left);
      left -= deleted;
      calls.push(deleted);
      return deleted;
    },
  };
  return { events, calls };
}

test('a sweep deletes in small steps until a step finds less than a full one', async () => {
  const fake = fakeEvents(1_234);
  const retention = startEventRetention(fake, { intervalMs: 3_600_000, stepRows: 500 });
  assert.equal(await retention.sweep(), 1_234);
  assert.deepEqual(fake.calls, [500, 500, 234]);
  await retention.stop();
});

test('a sweep stops after maxSteps: a backlog is worked off over several sweeps', async () => {
  const fake = fakeEvents(10_000);
  const retention = startEventRetention(fake, { intervalMs: 3_600_000, stepRows: 10, maxSteps: 3 });
  assert.equal(await retention.sweep(), 30);
  await retention.stop();
});

test('the timer sweeps on its own, keeps no process alive, and stop() ends it', async () => {
  const fake = fakeEvents(3);
  const before = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const retention = startEventRetention(fake, { intervalMs: 20, stepRows: 2 });
  assert.equal(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length, before, 'the timer is unref()ed');
  await eventually('swept by the timer', () => fake.calls.length >= 2);
  await retention.stop();
  const calls = fake.calls.length;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(fake.calls.length, calls, 'no sweep after stop()');
});

test('a failed sweep is reported and the next one tries again', async () => {
  let failures = 0;
  const warnings: string[] = [];
  const events: EventRepository = {
    ...fakeEvents(0).events,
    deleteExpired: () => (++failures <= 2 ? Promise.reject(new Error('database is away')) : Promise.resolve(0)),
  };
  const retention = startEventRetention({ events }, { intervalMs: 10, logger: { warn: (msg) => warnings.push(msg) } });
  await eventually('tried again after failures', () => failures >= 3);
  await retention.stop();
  assert.equal(warnings.length, 2);
});

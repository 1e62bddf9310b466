/** How many delays a retry schedule may list. */
export const MAX_SCHEDULE_LENGTH = 20;

/** The longest one delay may be: a week. */
export const MAX_DELAY_MS = 7 * 24 * 3_600_000;

/** The longest a receiver's `Retry-After` holds a delivery back: a day; a longer one counts as a day. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** A delay's share added at random, at most: 20%, so a thousand deliveries failed at once spread out. */
export const JITTER = 0.2;

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A schedule parsed: the delays in milliseconds, or why the text is not one. */
export type ParsedDurations = { ok: true; delaysMs: number[] } | { ok: false; problem: string };

/** Parses `5s,5m,30m,2h`: 1..20 whole durations with `ms`, `s`, `m` or `h`, each from 1 ms to a week. */
export function parseDurationList(raw: string): ParsedDurations {
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_SCHEDULE_LENGTH) return { ok: false, problem: `${entries.length} durations, more than ${MAX_SCHEDULE_LENGTH}` };
  const delaysMs: number[] = [];
  for (const entry of entries) {
    const match = /^(\d{1,12})(ms|s|m|h)$/.exec(entry);
    const value = match === null ? Number.NaN : Number(match[1]) * (UNITS[match[2] ?? ''] ?? Number.NaN);
    if (Number.isNaN(value)) return { ok: false, problem: `${JSON.stringify(entry)} is not a whole number with ms, s, m or h` };
    if (value < 1 || value > MAX_DELAY_MS) return { ok: false, problem: `${entry} is not between 1ms and 168h` };
    delaysMs.push(value);
  }
  return { ok: true, delaysMs };
}

/**
 * How long after a failed attempt the next one is made, or null when the schedule has run out.
 * `attemptsMade` counts the attempts of this run of the schedule (1 after the first failure); the
 * delay is the schedule's, or the receiver's `Retry-After` when that is longer (later, never earlier),
 * plus up to 20% of it at random (never less than asked).
 */
export function nextAttemptDelayMs(scheduleMs: readonly number[], attemptsMade: number, retryAfterMs: number | null, random: () => number): number | null {
  if (attemptsMade < 1) return 0;
  const scheduled = scheduleMs[attemptsMade - 1];
  if (scheduled === undefined) return null;
  const asked = retryAfterMs === null ? 0 : Math.min(Math.max(retryAfterMs, 0), MAX_RETRY_AFTER_MS);
  const base = Math.max(scheduled, asked);
  return base + Math.floor(random() * JITTER * base);
}

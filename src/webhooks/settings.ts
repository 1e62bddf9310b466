import { ConfigError } from '../shared/settings.ts';
import { parseDurationList } from './schedule.ts';

/** How deliveries are made (docs/webhooks.md): the variables SVC_WEBHOOK_*, parsed. */
export interface WebhookSettings {
  /** The whole of one attempt, from the look-up to the end of the answer. */
  timeoutMs: number;
  /** The delays between attempts; its length + 1 attempts in all. */
  retryScheduleMs: readonly number[];
  /** Whether loopback, private and other local targets and plain http: are allowed. */
  allowPrivate: boolean;
}

/** The default schedule: eight attempts over about 28 hours. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
/** SVC_WEBHOOK_TIMEOUT_MS: its range and default, in milliseconds. */
export const TIMEOUT_RANGE_MS = { min: 100, max: 300_000, fallback: 10_000 } as const;

type Env = Readonly<Record<string, string | undefined>>;

function fail(name: string, value: string, allowed: string): never {
  throw new ConfigError(`invalid ${name}=${JSON.stringify(value)}: expected ${allowed}`);
}

function timeoutMs(env: Env): number {
  const name = 'SVC_WEBHOOK_TIMEOUT_MS';
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return TIMEOUT_RANGE_MS.fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < TIMEOUT_RANGE_MS.min || value > TIMEOUT_RANGE_MS.max) {
    fail(name, raw, `an integer from ${TIMEOUT_RANGE_MS.min} to ${TIMEOUT_RANGE_MS.max} (milliseconds)`);
  }
  return value;
}

function retrySchedule(env: Env): number[] {
  const name = 'SVC_WEBHOOK_RETRY_SCHEDULE';
  const raw = env[name];
  const parsed = parseDurationList(raw === undefined || raw.trim() === '' ? DEFAULT_RETRY_SCHEDULE : raw);
  if (!parsed.ok) fail(name, raw ?? '', `1 to 20 comma-separated durations such as 5s,5m,30m,2h, each a whole number with ms, s, m or h from 1ms to 168h (${parsed.problem})`);
  return parsed.delaysMs;
}

function allowPrivate(env: Env): boolean {
  const name = 'SVC_WEBHOOK_ALLOW_PRIVATE';
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return false;
  const value = raw.trim().toLowerCase();
  if (value !== 'true' && value !== 'false') fail(name, raw, 'true or false');
  return value === 'true';
}

/** Parses the SVC_WEBHOOK_* variables of `env`; throws ConfigError naming the first bad one. */
export function parseWebhookSettings(env: Env = process.env): WebhookSettings {
  return { timeoutMs: timeoutMs(env), retryScheduleMs: retrySchedule(env), allowPrivate: allowPrivate(env) };
}

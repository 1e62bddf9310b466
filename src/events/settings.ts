import { ConfigError } from '../shared/settings.ts';
import { DEFAULT_EVENT_RETENTION_MS } from './model.ts';

/** The events' settings (docs/configuration.md): how long an event is kept. */
export interface EventSettings {
  /** SVC_EVENTS_RETENTION in milliseconds: an event older than this is never served and soon deleted. */
  retentionMs: number;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const MIN_MS = 10 * UNIT_MS.s;
const MAX_MS = 8_760 * UNIT_MS.h;


type Env = Readonly<Record<string, string | undefined>>;

/** A duration such as `90s`, `15m` or `168h` in milliseconds, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,10})(s|m|h)$/.exec(text.trim());
  if (match === null) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Parses SVC_EVENTS_RETENTION of `env`; throws ConfigError (one line: the variable, the value, what is allowed). */
export function parseEventSettings(env: Env): EventSettings {
  const raw = env['SVC_EVENTS_RETENTION'];
  if (raw === undefined || raw.trim() === '') return { retentionMs: DEFAULT_EVENT_RETENTION_MS };
  const ms = parseDuration(raw);
  if (ms === null || ms < MIN_MS || ms > MAX_MS) {
    throw new ConfigError(`invalid SVC_EVENTS_RETENTION=${JSON.stringify(raw)}: expected a duration with s, m or h (such as 168h) from 10s to 8760h`);
  }
  return { retentionMs: ms };
}

import { ConfigError, integer } from '../shared/settings.ts';
import { DEFAULT_EVENT_RETENTION_MS } from './model.ts';

/** The events' settings (docs/configuration.md): how long an event is kept, and how many live streams a process holds. */
export interface EventSettings {
  /** SVC_EVENTS_RETENTION in milliseconds: an event older than this is never served and soon deleted. */
  retentionMs: number;
  /** SVC_STREAMS_PER_CALLER: live streams one caller (a key, a token's `sub`, an address when open) holds per process. */
  streamsPerCaller: number;
  /** SVC_MAX_STREAMS: live streams of all callers per process, below SVC_MAX_CONNECTIONS (checked by src/config.ts). */
  maxStreams: number;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const MIN_MS = 10 * UNIT_MS.s;
const MAX_MS = 8_760 * UNIT_MS.h;
const MOST_STREAMS = 1_000_000;

type Env = Readonly<Record<string, string | undefined>>;

/** A duration such as `90s`, `15m` or `168h` in milliseconds, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,10})(s|m|h)$/.exec(text.trim());
  if (match === null) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

function retentionMs(env: Env): number {
  const raw = env['SVC_EVENTS_RETENTION'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_EVENT_RETENTION_MS;
  const ms = parseDuration(raw);
  if (ms === null || ms < MIN_MS || ms > MAX_MS) {
    throw new ConfigError(`invalid SVC_EVENTS_RETENTION=${JSON.stringify(raw)}: expected a duration with s, m or h (such as 168h) from 10s to 8760h`);
  }
  return ms;
}

/**
 * Parses SVC_EVENTS_RETENTION, SVC_STREAMS_PER_CALLER and SVC_MAX_STREAMS of `env` (the last defaults
 * to half of `maxConnections`, SVC_MAX_CONNECTIONS); throws ConfigError (one line: the variable, the
 * value, what is allowed).
 */
export function parseEventSettings(env: Env, maxConnections: number): EventSettings {
  return {
    retentionMs: retentionMs(env),
    streamsPerCaller: integer(env, 'SVC_STREAMS_PER_CALLER', 5, 1, MOST_STREAMS),
    maxStreams: integer(env, 'SVC_MAX_STREAMS', Math.floor(maxConnections / 2), 0, MOST_STREAMS),
  };
}

/** Streams past SVC_MAX_CONNECTIONS would leave no connection for anything else (docs/events.md): refused at start. */
export function checkStreamLimits(settings: EventSettings, maxConnections: number): void {
  if (settings.maxStreams >= maxConnections) {
    throw new ConfigError(
      `invalid SVC_MAX_STREAMS=${JSON.stringify(String(settings.maxStreams))}: expected less than SVC_MAX_CONNECTIONS (${maxConnections}), so that other requests always have connections`,
    );
  }
}

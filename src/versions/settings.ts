import { type Env, fail } from '../shared/settings.ts';
import { isCurrency } from '../shared/currencies.ts';

/** SVC_API_VERSION, SVC_API_SUNSET and SVC_DEFAULT_CURRENCY (docs/versions.md). */
export interface VersionSettings {
  /** The version of a request that names none and whose key pins none. */
  defaultVersion: string;
  /** When each version going away stops being served (ms since the epoch). */
  sunsets: ReadonlyMap<string, number>;
  /** Unix seconds when this process read the sunsets: the date of its Deprecation header. */
  sunsetsAnnouncedAt: number;
  /** The currency of prices written in versions before prices had one. */
  defaultCurrency: string;
}

// When this process started: the date of every Deprecation it sends (it learnt its sunsets then).
const STARTED_S = Math.floor(Date.now() / 1000);

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

// `2026-11-21=2027-06-30T00:00:00Z,…`: each a known version but the newest, once, with an RFC 3339 moment.
function sunsetsOf(env: Env, known: readonly string[]): Map<string, number> {
  const raw = env['SVC_API_SUNSET'] ?? '';
  const sunsets = new Map<string, number>();
  if (raw.trim() === '') return sunsets;
  const allowed = `comma-separated VERSION=RFC3339-TIME entries, each version one of ${known.slice(0, -1).join(', ')} (the newest, ${known.at(-1)}, cannot go away), at most once`;
  for (const entry of raw.split(',')) {
    const [version = '', at = '', extra] = entry.trim().split('=');
    const moment = Date.parse(at);
    if (extra !== undefined || !known.slice(0, -1).includes(version) || sunsets.has(version) || !RFC_3339.test(at) || Number.isNaN(moment)) fail('SVC_API_SUNSET', raw, allowed);
    sunsets.set(version, moment);
  }
  return sunsets;
}

/** Parses the version settings against the versions the build knows (oldest first); `now` judges a default already past its sunset. */
export function parseVersionSettings(env: Env, known: readonly string[], now = Date.now()): VersionSettings {
  const sunsets = sunsetsOf(env, known);
  const rawVersion = env['SVC_API_VERSION'];
  const defaultVersion = rawVersion === undefined || rawVersion === '' ? (known[0] ?? '') : rawVersion.trim();
  const served = known.filter((version) => (sunsets.get(version) ?? Infinity) > now);
  if (!served.includes(defaultVersion)) fail('SVC_API_VERSION', rawVersion ?? '', `a version served: ${served.join(', ')}${known.includes(defaultVersion) ? ` (${defaultVersion} is past its sunset)` : ''}`);
  const rawCurrency = env['SVC_DEFAULT_CURRENCY'];
  const defaultCurrency = rawCurrency === undefined || rawCurrency === '' ? 'EUR' : rawCurrency.trim();
  if (!isCurrency(defaultCurrency)) fail('SVC_DEFAULT_CURRENCY', rawCurrency ?? '', 'an ISO 4217 code of a currency in force, such as EUR, USD or JPY (the README lists them)');
  return { defaultVersion, sunsets, sunsetsAnnouncedAt: STARTED_S, defaultCurrency };
}

import { ConfigError, type Env, host, integer } from '../shared/settings.ts';

/** The metrics listener's settings (SVC_METRICS_PORT, SVC_METRICS_HOST). */
export interface MetricsSettings {
  /** The metrics listener's port (0: any free port), or null when metrics are off. */
  metricsPort: number | null;
  metricsHost: string;
}

// Empty is off; otherwise a port like SVC_PORT's.
function metricsPort(env: Env): number | null {
  const raw = env['SVC_METRICS_PORT'];
  if (raw === undefined || raw === '') return null;
  try {
    return integer(env, 'SVC_METRICS_PORT', 0, 0, 65535);
  } catch {
    throw new ConfigError(`invalid SVC_METRICS_PORT=${JSON.stringify(raw)}: expected an integer from 0 to 65535 (0: any free port), or empty for no metrics listener`);
  }
}

/** Parses SVC_METRICS_PORT and SVC_METRICS_HOST. */
export function parseMetricsSettings(env: Env): MetricsSettings {
  return { metricsPort: metricsPort(env), metricsHost: host(env, 'SVC_METRICS_HOST') };
}

const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/**
 * Metrics are never served on the API's listener: the same fixed port on the same (or an
 * every-address) host is refused here, in words, rather than as EADDRINUSE at start-up.
 */
export function checkMetricsPort(metrics: MetricsSettings, api: { port: number; host: string }): void {
  const { metricsPort: port, metricsHost } = metrics;
  const sameHost = api.host.toLowerCase() === metricsHost.toLowerCase() || WILDCARDS.has(api.host) || WILDCARDS.has(metricsHost);
  if (port !== null && port !== 0 && port === api.port && sameHost) {
    throw new ConfigError(
      `invalid SVC_METRICS_PORT=${JSON.stringify(String(port))}: expected another port than SVC_PORT (${api.port}) ` +
        `on SVC_METRICS_HOST ${metricsHost}; metrics have their own listener, never the API's`,
    );
  }
}

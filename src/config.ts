import { checkAuth, checkTimeouts, type CoreSettings, parseAuthMode, parseCoreSettings } from './core-settings.ts';
import { checkStreamLimits, type EventSettings, parseEventSettings } from './events/settings.ts';
import { checkMetricsPort, type MetricsSettings, parseMetricsSettings } from './metrics/settings.ts';
import type { Env } from './shared/settings.ts';
import { VERSIONS } from './registry.ts';
import { type JwtSettings, parseJwtSettings } from './tokens/settings.ts';
import { parseVersionSettings, type VersionSettings } from './versions/settings.ts';
import { parseWebhookSettings, type WebhookSettings } from './webhooks/settings.ts';

// The one place that assembles the settings: each part parses its own variables in a module beside
// it (src/core-settings.ts for the core, src/<part>/settings.ts for a later part), and this file, the
// wiring of configuration, puts them together and checks them against each other. The core never
// imports it, so later parts can be added here without the core learning of them (rule 6).

export { AUTH_MODES, type AuthMode, ConfigError, DURABILITIES, type Durability, LOG_LEVELS, type LogLevel } from './shared/settings.ts';
export type { JwtSettings } from './tokens/settings.ts';
export type { EventSettings } from './events/settings.ts';

/** Every setting of the service, parsed and validated (docs/configuration.md). */
export interface Config extends CoreSettings, MetricsSettings {
  /** SVC_JWT_*: where access tokens come from (src/tokens/settings.ts). */
  jwt: JwtSettings;
  /** SVC_EVENTS_*: the event feed (src/events/settings.ts). */
  events: EventSettings;
  /** SVC_WEBHOOK_*: deliveries (src/webhooks/settings.ts). */
  webhooks: WebhookSettings;
  /** SVC_API_VERSION, SVC_API_SUNSET, SVC_DEFAULT_CURRENCY (src/versions/settings.ts). */
  versions: VersionSettings;
}

/** Parses the SVC_* variables of `env`; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env): Config {
  const auth = parseAuthMode(env);
  const core = parseCoreSettings(env, auth);
  const config: Config = {
    ...core,
    jwt: parseJwtSettings(env, auth),
    ...parseMetricsSettings(env),
    events: parseEventSettings(env, core.maxConnections),
    webhooks: parseWebhookSettings(env),
    versions: parseVersionSettings(env, VERSIONS.map((spec) => spec.version)),
  };
  checkTimeouts(config);
  checkMetricsPort(config, config);
  checkAuth(config);
  checkStreamLimits(config.events, config.maxConnections);
  return config;
}

import type { ApiVersions, VersionView } from '../versions/api-versions.ts';
import type { Webhook } from './model.ts';

/**
 * The version a webhook pinned to `pinned` delivers in at `at` (Unix ms; docs/webhooks.md, versions of
 * deliveries): its own while it is served then, else (past its sunset, or a version this build no longer
 * knows) the oldest version served then. A delivery is judged at its event's time, so every attempt of it
 * is made in the same version, before the sunset and after.
 */
export function versionInForce(versions: ApiVersions, pinned: string, at: number): VersionView {
  return versions.served(pinned, at) ?? versions.servedAt(at).at(-1) ?? versions.newest;
}

/**
 * A stored webhook as it stands at `now`: once its version is past its sunset it shows the version its
 * new events are delivered in, and its entity tag moves on (its version, plus one, plus every version past
 * its sunset: each sunset that changes what it shows moves the tag again, and a write from here on stores
 * the version it shows, one more than the tag it was written under), so a tag never names two representations.
 */
export function webhookAt(webhook: Webhook, versions: ApiVersions, now: number): Webhook {
  const inForce = versionInForce(versions, webhook.apiVersion, now).id;
  if (inForce === webhook.apiVersion) return webhook;
  const gone = versions.all.filter((view) => view.sunsetAt !== null && view.sunsetAt <= now).length;
  return { ...webhook, apiVersion: inForce, version: webhook.version + 1 + gone };
}

import type { Repositories } from '../db/storage.ts';
import type { EventRepository } from '../events/repository.ts';
import { type ChangeableRepository, type ChangeOutcome, type Precondition, removeVersioned, type RemoveOutcome } from '../shared/changes.ts';
import { type Page, type PageRequest, pageOf } from '../shared/paging.ts';
import type { ApiVersions } from '../versions/api-versions.ts';
import { type Delivery, type DeliveryStatus, type NewWebhook, type Webhook, type WebhookPatch, WebhookStatus } from './model.ts';
import { webhookAt } from './pinned-version.ts';
import type { DeliveryRepository, WebhookRepository } from './repository.ts';
import { newWebhookSecret } from './signature.ts';

/** A webhook just made or rotated, and its secret, shown in that answer only. */
export interface WithSecret {
  webhook: Webhook;
  secret: string;
}

/** A page request of one webhook's delivery log, optionally of one status. */
export interface DeliveryPageRequest extends PageRequest {
  webhookId: number;
  status: DeliveryStatus | null;
}

/** What a rotation did. */
export type RotateOutcome = { kind: 'rotated'; rotated: WithSecret } | { kind: 'not_found' } | { kind: 'precondition_failed' };

/** What a manual retry did: restarted, or why not (no such webhook or delivery; its event no longer kept; the webhook disabled). */
export type RetryOutcome = { kind: 'restarted'; delivery: Delivery } | { kind: 'not_found' } | { kind: 'expired' } | { kind: 'disabled' };

/** Runs a work in a write transaction (Storage.transaction). */
export type Transact = <T>(work: (tx: Repositories) => Promise<T>) => Promise<T>;

/** What the rules need besides the repositories: where expiry is known, and the clock. */
export interface WebhookRules {
  /** The event feed: whether an event id is no longer kept. */
  events: Pick<EventRepository, 'isExpired'>;
  /** SVC_EVENTS_RETENTION in milliseconds: a delivery is kept as long as its event. */
  retentionMs: number;
  /** The versions served and their sunsets: a webhook whose version is past its sunset stands for another (webhookAt). */
  versions: ApiVersions;
  now?: () => Date;
}

/** The rules for webhooks and their deliveries, independent of HTTP and of the database engine. Writes run in `tx`. */
export interface WebhookUseCases {
  create(tx: Repositories, input: NewWebhook): Promise<WithSecret>;
  get(id: number): Promise<Webhook | undefined>;
  list(request: PageRequest): Promise<Page<Webhook>>;
  change(tx: Repositories, id: number, patch: WebhookPatch, precondition: Precondition): Promise<ChangeOutcome<Webhook>>;
  remove(tx: Repositories, id: number, precondition: Precondition): Promise<RemoveOutcome>;
  /** A new secret; the current one keeps signing for `keepSeconds` (0: not at all). */
  rotate(tx: Repositories, id: number, keepSeconds: number, precondition: Precondition): Promise<RotateOutcome>;
  /** The delivery log, newest first; undefined when the webhook does not exist. */
  deliveries(request: DeliveryPageRequest): Promise<Page<Delivery> | undefined>;
  /**
   * Makes a delivery pending again, due now, its schedule started over; in checks: the webhook (404), the
   * event no longer kept (410, whether or not its delivery is still in the log), no delivery of it (404),
   * the webhook disabled (409).
   */
  retry(transact: Transact, webhookId: number, eventId: string): Promise<RetryOutcome>;
}

const sameTypes = (a: number[] | null, b: number[] | null): boolean => (a === null || b === null ? a === b : a.join() === b.join());

// A change's effect on the pending deliveries: disabling plans nothing more, enabling makes them due now.
async function followStatus(tx: Repositories, current: Webhook, next: Webhook, now: number): Promise<void> {
  if (current.status === next.status) return;
  await tx.webhookDeliveries.pauseOrResume(next.id, next.status === WebhookStatus.enabled ? now : null);
}

// A retry inside its transaction; `no_delivery` leaves it to the caller to tell an expired event from an unknown one.
async function restart(tx: Repositories, webhookId: number, eventId: string, at: Date, retentionMs: number): Promise<RetryOutcome | { kind: 'no_delivery' }> {
  const webhook = await tx.webhooks.findForUpdate(webhookId);
  if (webhook === undefined) return { kind: 'not_found' };
  const delivery = await tx.webhookDeliveries.findForUpdate(webhookId, eventId);
  if (delivery === undefined) return { kind: 'no_delivery' };
  // Its event's time, as the delivery keeps it: the events table may have let it go already, or not yet.
  if (Date.parse(delivery.eventCreatedAt) < at.getTime() - retentionMs) return { kind: 'expired' };
  if (webhook.status === WebhookStatus.disabled) return { kind: 'disabled' };
  await tx.webhookDeliveries.restart(delivery.seq, at.getTime());
  return { kind: 'restarted', delivery: { ...delivery, status: 1, nextAttemptAt: at.getTime() } };
}

/** `webhooks` and `deliveries` serve reads outside transactions; `rules` say how long deliveries are kept, and the clock. */
export function createWebhookUseCases(webhooks: WebhookRepository, deliveries: DeliveryRepository, rules: WebhookRules): WebhookUseCases {
  const now = rules.now ?? (() => new Date());
  // Every webhook read is seen as it stands now (its version past its sunset: webhookAt), so its
  // preconditions compare with the tag it shows, and a change stores the version it shows.
  const standing = (webhook: Webhook): Webhook => webhookAt(webhook, rules.versions, now().getTime());
  const found = async (read: Promise<Webhook | undefined>): Promise<Webhook | undefined> => {
    const webhook = await read;
    return webhook === undefined ? undefined : standing(webhook);
  };
  const standingIn = (tx: Repositories): ChangeableRepository<Webhook> => ({
    findForUpdate: (id) => found(tx.webhooks.findForUpdate(id)),
    update: (webhook) => tx.webhooks.update(webhook),
    remove: (id) => tx.webhooks.remove(id),
  });
  return {
    async create(tx, input) {
      const at = now().toISOString();
      const secret = newWebhookSecret();
      const webhook = await tx.webhooks.insert({ ...input, secret, previousSecret: null, previousSecretUntil: null, createdAt: at, updatedAt: at });
      return { webhook, secret };
    },
    get: (id) => found(webhooks.findById(id)),
    list: (request) => pageOf(request, async (limit) => (await webhooks.listBefore(request.beforeId, limit)).map(standing)),
    async change(tx, id, patch, precondition) {
      const current = await standingIn(tx).findForUpdate(id);
      if (current === undefined) return { kind: 'not_found' };
      if (!precondition(current.version)) return { kind: 'precondition_failed' };
      const next: Webhook = { ...current, ...patch };
      const same = next.url === current.url && next.status === current.status && next.apiVersion === current.apiVersion;
      if (same && sameTypes(next.eventTypes, current.eventTypes)) return { kind: 'unchanged', resource: current };
      const at = now();
      const changed: Webhook = { ...next, updatedAt: at.toISOString(), version: current.version + 1 };
      await tx.webhooks.update(changed);
      await followStatus(tx, current, changed, at.getTime());
      return { kind: 'changed', resource: changed };
    },
    remove: (tx, id, precondition) => removeVersioned(standingIn(tx), id, precondition),
    async rotate(tx, id, keepSeconds, precondition) {
      const current = await standingIn(tx).findForUpdate(id);
      if (current === undefined) return { kind: 'not_found' };
      if (!precondition(current.version)) return { kind: 'precondition_failed' };
      const at = now();
      const secret = newWebhookSecret();
      const keep = keepSeconds > 0;
      const webhook: Webhook = {
        ...current,
        secret,
        previousSecret: keep ? current.secret : null,
        previousSecretUntil: keep ? at.getTime() + keepSeconds * 1000 : null,
        updatedAt: at.toISOString(),
        version: current.version + 1,
      };
      await tx.webhooks.update(webhook);
      return { kind: 'rotated', rotated: { webhook, secret } };
    },
    async deliveries(request) {
      if ((await webhooks.findById(request.webhookId)) === undefined) return undefined;
      const rows = await deliveries.listBefore(request.webhookId, request.beforeId, request.limit + 1, request.status);
      const items = rows.slice(0, request.limit);
      return { items, nextBeforeId: rows.length > request.limit ? (items.at(-1)?.seq ?? null) : null };
    },
    async retry(transact, webhookId, eventId) {
      const outcome = await transact((tx) => restart(tx, webhookId, eventId, now(), rules.retentionMs));
      if (outcome.kind !== 'no_delivery') return outcome;
      // None in the log: deleted with its expired event, or never made; an event still kept is not this webhook's.
      return (await rules.events.isExpired(eventId)) ? { kind: 'expired' } : { kind: 'not_found' };
    },
  };
}

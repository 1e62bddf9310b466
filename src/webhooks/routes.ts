import { Scope } from '../callers/scopes.ts';
import type { Repositories } from '../db/storage.ts';
import { parseJson, readBody } from '../http/body.ts';
import { entityTag, parsePreconditions, refuseMalformedPreconditions } from '../http/conditional.ts';
import { HttpError } from '../http/errors.ts';
import { deleteHandler, type ItemSpec, patchHandler, readHandler } from '../http/item-handlers.ts';
import { listReply, nextLink, parseEnumFilter, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, ok, parseId, type RequestContext } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import type { VersionView } from '../versions/api-versions.ts';
import type { PinRules } from '../versions/pins.ts';
import { checkBodyHeaders, readValidated, validationFailed, type WriteDeps } from '../http/write-input.ts';
import { DELIVERY_STATUSES, type Webhook, type WebhookPatch } from './model.ts';
import { EXPIRED_EVENT_DETAIL, presentDelivery, presentWebhook, presentWebhookWithSecret } from './presenter.ts';
import type { WebhookUseCases } from './use-cases.ts';
import { DEFAULT_KEEP_CURRENT_SECONDS, validateNewWebhook, validateRotation, validateWebhookPatch, type WebhookRules } from './validate.ts';

const PATH = '/api/webhooks';
// The kind of a webhook's representation, as the API versions change it (docs/versions.md).
const KIND = 'webhooks';
const EVENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

// The answers of a create and a rotation carry the secret, which must never be stored for a replay.
function noReplay(path: string): HttpError {
  const detail = `${path} takes no Idempotency-Key: its response carries the webhook's secret, which is never stored for a replay.`;
  return new HttpError('invalid_header', { detail, errors: [{ parameter: 'Idempotency-Key', code: 'invalid', detail }] });
}

function webhookId(ctx: RequestContext): number {
  const id = parseId(ctx.params['id']);
  if (id === null) throw new HttpError('not_found', { detail: 'No webhook has this id.' });
  return id;
}

/** What the routes need besides the use cases: whether private targets are allowed, and whom to tell of due deliveries. */
export interface WebhookRouteOptions extends WebhookRules {
  events: WebhookRules['events'] & { nameOf(type: number): string };
  /**
   * Called after a commit that made deliveries due (a manual retry, a webhook enabled again), or that
   * may make the next ones (a webhook created): the deliverers look at once, and no longer count on
   * having found no webhook enabled.
   */
  onDue(): void;
  /** Called after a webhook was deleted: its log is to be removed, in steps. */
  onRemoved(): void;
  /** The versions served now, newest first: what a webhook's `apiVersion` may name. */
  servedVersions(): string[];
}

// What a body's `apiVersion` may be in the request's version: a member only where its Webhook has it.
function pinOf(version: VersionView, options: WebhookRouteOptions): PinRules {
  return { served: options.servedVersions(), defaultVersion: version.id, pinnable: version.has(KIND, 'apiVersion') };
}

function createWebhookHandler(webhooks: WebhookUseCases, writes: WriteDeps, options: WebhookRouteOptions): Handler {
  return async (ctx) => {
    checkBodyHeaders(ctx.req, ['application/json']);
    if (ctx.req.headers['idempotency-key'] !== undefined) throw noReplay('POST /api/webhooks');
    const { input } = await readValidated(ctx.req, writes.bodyLimitBytes, (body) => validateNewWebhook(body, options, pinOf(ctx.version, options)));
    const { webhook, secret } = await writes.storage.singleWrite((tx) => webhooks.create(tx, input));
    options.onDue();
    const body = ctx.version.downgrade(KIND, presentWebhookWithSecret(webhook, secret, options.events.nameOf));
    return created(`${PATH}/${webhook.id}`, body, entityTag(webhook.version, ctx.version.tagSuffix(KIND)));
  };
}

// The body is optional: none at all (no Content-Length, or 0, or zero chunks) means the default grace
// period, however the client framed it. A declared length is judged by its headers before it is read.
async function rotationBody(ctx: RequestContext, limit: number): Promise<number> {
  const { headers } = ctx.req;
  const chunked = headers['transfer-encoding'] !== undefined;
  if (!chunked && Number(headers['content-length'] ?? 0) === 0) return DEFAULT_KEEP_CURRENT_SECONDS;
  if (!chunked) checkBodyHeaders(ctx.req, ['application/json']);
  const raw = await readBody(ctx.req, limit);
  if (raw.length === 0) return DEFAULT_KEEP_CURRENT_SECONDS;
  if (chunked) checkBodyHeaders(ctx.req, ['application/json']);
  const result = validateRotation(parseJson(raw));
  if (!result.ok) throw validationFailed(result);
  return result.value;
}

function rotateHandler(webhooks: WebhookUseCases, writes: WriteDeps, nameOf: (type: number) => string): Handler {
  return async (ctx) => {
    const id = webhookId(ctx);
    if (ctx.req.headers['idempotency-key'] !== undefined) throw noReplay('POST /api/webhooks/{id}/rotate-secret');
    const { forChange } = parsePreconditions(ctx.req.headers, ctx.version.tagSuffix(KIND));
    const keepSeconds = await rotationBody(ctx, writes.bodyLimitBytes);
    const outcome = await writes.storage.transaction((tx) => webhooks.rotate(tx, id, keepSeconds, forChange));
    if (outcome.kind === 'not_found') throw new HttpError('not_found', { detail: 'No webhook has this id.' });
    if (outcome.kind === 'precondition_failed') throw new HttpError('precondition_failed');
    const { webhook, secret } = outcome.rotated;
    const body = ctx.version.downgrade(KIND, presentWebhookWithSecret(webhook, secret, nameOf));
    return { status: 200, body, headers: { etag: entityTag(webhook.version, ctx.version.tagSuffix(KIND)) } };
  };
}

function deliveriesHandler(webhooks: WebhookUseCases, nameOf: (type: number) => string): Handler {
  return async (ctx) => {
    const id = webhookId(ctx);
    const status = parseEnumFilter(ctx.query, 'status', DELIVERY_STATUSES);
    const list = status === null ? `deliveries:${id}` : `deliveries:${id};status=${status}`;
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest(list, ctx.query);
    const page = await webhooks.deliveries({ ...request, webhookId: id, status });
    if (page === undefined) throw new HttpError('not_found', { detail: 'No webhook has this id.' });
    const link = nextLink(`${PATH}/${id}/deliveries`, list, request, page, status === null ? '' : `&status=${status}`);
    return listReply(ctx.version, page.items.map((delivery) => presentDelivery(delivery, nameOf)), link);
  };
}

// A retry is safe to repeat as it is (it only makes the delivery due now), so an Idempotency-Key is ignored.
function retryHandler(webhooks: WebhookUseCases, writes: WriteDeps, onDue: () => void, nameOf: (type: number) => string): Handler {
  return async (ctx) => {
    const id = webhookId(ctx);
    const eventId = ctx.params['eventId'] ?? '';
    const transact = <T>(work: (tx: Repositories) => Promise<T>): Promise<T> => writes.storage.transaction(work);
    const outcome = EVENT_ID.test(eventId) ? await webhooks.retry(transact, id, eventId) : { kind: 'not_found' as const };
    if (outcome.kind === 'not_found') throw new HttpError('not_found', { detail: 'This webhook has no delivery of this event.' });
    if (outcome.kind === 'expired') throw new HttpError('events_expired', { detail: EXPIRED_EVENT_DETAIL });
    if (outcome.kind === 'disabled') throw new HttpError('webhook_disabled');
    onDue();
    return { status: 202, body: presentDelivery(outcome.delivery, nameOf) };
  };
}

/** Registers the webhook endpoints (docs/webhooks.md), each for `admin` callers: thin handlers from HTTP to use cases and back. */
export function addWebhookRoutes(router: Router<Handler>, webhooks: WebhookUseCases, writes: WriteDeps, options: WebhookRouteOptions): void {
  const { nameOf } = options.events;
  const present = (webhook: Webhook, version: VersionView) => version.downgrade(KIND, presentWebhook(webhook, nameOf));
  const ITEM: ItemSpec<Webhook> = { noun: 'webhook', kind: KIND, present };
  router.add('GET', PATH, Scope.admin, async (ctx) => {
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest('webhooks', ctx.query);
    const page = await webhooks.list(request);
    const link = nextLink(PATH, 'webhooks', request, page);
    return listReply(ctx.version, page.items.map((webhook) => present(webhook, ctx.version)), link);
  });
  router.add('POST', PATH, Scope.admin, createWebhookHandler(webhooks, writes, options));
  router.add('GET', `${PATH}/{id}`, Scope.admin, readHandler(ITEM, webhooks.get));
  const patch = patchHandler<Webhook, WebhookPatch>(writes, { ...ITEM, validate: (body, version) => validateWebhookPatch(body, options, pinOf(version, options)), change: webhooks.change });
  router.add('PATCH', `${PATH}/{id}`, Scope.admin, async (ctx) => {
    const reply = await patch(ctx);
    // Enabled again: its pending deliveries are due now.
    options.onDue();
    return reply;
  });
  const remove = deleteHandler(writes, { ...ITEM, remove: webhooks.remove });
  router.add('DELETE', `${PATH}/{id}`, Scope.admin, async (ctx) => {
    const reply = await remove(ctx);
    // Answered at once; its log goes in steps that no request waits for.
    options.onRemoved();
    return reply;
  });
  router.add('POST', `${PATH}/{id}/rotate-secret`, Scope.admin, rotateHandler(webhooks, writes, nameOf));
  router.add('GET', `${PATH}/{id}/deliveries`, Scope.admin, deliveriesHandler(webhooks, nameOf));
  router.add('POST', `${PATH}/{id}/deliveries/{eventId}/retry`, Scope.admin, retryHandler(webhooks, writes, options.onDue, nameOf));
}

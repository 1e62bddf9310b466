import { Scope } from '../callers/scopes.ts';
import { entityTag, parsePreconditions, refuseMalformedPreconditions } from '../http/conditional.ts';
import { HttpError } from '../http/errors.ts';
import { PATCH_TYPES } from '../http/item-handlers.ts';
import { listReply, nextLink, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, type Reply, type RequestContext } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { checkBodyHeaders, readValidated, type WriteDeps } from '../http/write-input.ts';
import { KEY_ID_PATTERN } from './format.ts';
import type { ApiKey } from './model.ts';
import { presentApiKey, presentCreatedApiKey } from './presenter.ts';
import type { ApiKeyUseCases } from './use-cases.ts';
import { validateApiKeyPatch, validateNewApiKey } from './validate.ts';

const PATH = '/api/keys';
// The kind of a key's representation, as the API versions change it (docs/versions.md).
const KIND = 'keys';
// The member a version may lack (2026-11-21 has none: a key made there pins the request's version).
const PIN = 'apiVersion';

// The 201 carries the key, which exists nowhere else: a response that must never be stored for replay.
const NO_REPLAY_DETAIL = 'POST /api/keys takes no Idempotency-Key: its response carries the new key, which is never stored for a replay.';
const NO_REPLAY = new HttpError('invalid_header', {
  detail: NO_REPLAY_DETAIL,
  errors: [{ parameter: 'Idempotency-Key', code: 'invalid', detail: NO_REPLAY_DETAIL }],
});

/** What the keys endpoints need besides the use cases. */
export interface KeyRouteOptions {
  /** Tells this process's key check of a key made, changed or revoked here, so it counts at once. */
  remember(apiKey: ApiKey): void;
  /** The versions served now, newest first (App.versions.servedAt()): the only ones a key may pin. */
  servedVersions(): readonly string[];
}

function idOf(ctx: RequestContext): string {
  const id = ctx.params['id'] ?? '';
  if (!KEY_ID_PATTERN.test(id)) throw notFound();
  return id;
}

function notFound(): HttpError {
  return new HttpError('not_found', { detail: 'No API key has this id.' });
}

// One key in the request's version, with the tag of that version.
function keyReply(ctx: RequestContext, apiKey: ApiKey): Reply {
  return { status: 200, body: ctx.version.downgrade(KIND, presentApiKey(apiKey)), headers: { etag: entityTag(apiKey.version, ctx.version.tagSuffix(KIND)) } };
}

function createKeyHandler(keys: ApiKeyUseCases, writes: WriteDeps, options: KeyRouteOptions): Handler {
  return async (ctx) => {
    checkBodyHeaders(ctx.req, ['application/json']);
    if (ctx.req.headers['idempotency-key'] !== undefined) throw NO_REPLAY;
    const versions = { served: options.servedVersions(), defaultVersion: ctx.version.id, pinnable: ctx.version.has(KIND, PIN) };
    const { input } = await readValidated(ctx.req, writes.bodyLimitBytes, (body) => validateNewApiKey(body, keys.now(), versions));
    const { apiKey, key } = await writes.storage.singleWrite((tx) => keys.create(tx, input));
    options.remember(apiKey);
    return created(`${PATH}/${apiKey.id}`, ctx.version.downgrade(KIND, presentCreatedApiKey(apiKey, key)), entityTag(apiKey.version, ctx.version.tagSuffix(KIND)));
  };
}

function readKeyHandler(keys: ApiKeyUseCases): Handler {
  return async (ctx) => {
    const id = idOf(ctx);
    const suffix = ctx.version.tagSuffix(KIND);
    const preconditions = parsePreconditions(ctx.req.headers, suffix);
    const apiKey = await keys.get(id);
    if (apiKey === undefined) throw notFound();
    const verdict = preconditions.forRead(apiKey.version);
    if (verdict === 'failed') throw new HttpError('precondition_failed');
    if (verdict === 'not_modified') return { status: 304, headers: { etag: entityTag(apiKey.version, suffix) } };
    return keyReply(ctx, apiKey);
  };
}

// A merge patch of `name` and `apiVersion`, in every version; a new version counts at once in this
// process (`remember`), as a revocation does, and within the key check's re-read elsewhere.
function changeKeyHandler(keys: ApiKeyUseCases, writes: WriteDeps, options: KeyRouteOptions): Handler {
  return async (ctx) => {
    const id = idOf(ctx);
    checkBodyHeaders(ctx.req, PATCH_TYPES);
    const { forChange } = parsePreconditions(ctx.req.headers, ctx.version.tagSuffix(KIND));
    const { input } = await readValidated(ctx.req, writes.bodyLimitBytes, (body) => validateApiKeyPatch(body, options.servedVersions()));
    const outcome = await writes.storage.transaction((tx) => keys.change(tx, id, input, forChange));
    if (outcome.kind === 'not_found') throw notFound();
    if (outcome.kind === 'precondition_failed') throw new HttpError('precondition_failed');
    if (outcome.kind === 'changed') options.remember(outcome.resource);
    return keyReply(ctx, outcome.resource);
  };
}

// Revoking is idempotent (a second DELETE is 204 again); `remember` makes it count at once in this process.
function revokeKeyHandler(keys: ApiKeyUseCases, writes: WriteDeps, remember: (apiKey: ApiKey) => void): Handler {
  return async (ctx) => {
    const id = idOf(ctx);
    const { forChange } = parsePreconditions(ctx.req.headers, ctx.version.tagSuffix(KIND));
    const outcome = await writes.storage.transaction((tx) => keys.revoke(tx, id, forChange));
    if (outcome.kind === 'not_found') throw notFound();
    if (outcome.kind === 'precondition_failed') throw new HttpError('precondition_failed');
    remember(outcome.apiKey);
    return { status: 204 };
  };
}

/** Registers the keys endpoints (SVC_AUTH=keys), each for `admin` callers: thin handlers from HTTP to use cases and back. */
export function addKeyRoutes(router: Router<Handler>, keys: ApiKeyUseCases, writes: WriteDeps, options: KeyRouteOptions): void {
  router.add('GET', PATH, Scope.admin, async (ctx) => {
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest('keys', ctx.query);
    const page = await keys.list(request);
    const link = nextLink(PATH, 'keys', request, page);
    return listReply(ctx.version, page.items.map((apiKey) => ctx.version.downgrade(KIND, presentApiKey(apiKey))), link);
  });
  router.add('POST', PATH, Scope.admin, createKeyHandler(keys, writes, options));
  router.add('GET', `${PATH}/{id}`, Scope.admin, readKeyHandler(keys));
  router.add('PATCH', `${PATH}/{id}`, Scope.admin, changeKeyHandler(keys, writes, options));
  router.add('DELETE', `${PATH}/{id}`, Scope.admin, revokeKeyHandler(keys, writes, options.remember));
}

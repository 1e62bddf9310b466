import { Scope } from '../callers/scopes.ts';
import { entityTag, parsePreconditions, refuseMalformedPreconditions } from '../http/conditional.ts';
import { HttpError } from '../http/errors.ts';
import { listReply, nextLink, parsePageRequest } from '../http/paging.ts';
import { created, type Handler, type RequestContext } from '../http/reply.ts';
import type { Router } from '../http/router.ts';
import { checkBodyHeaders, readValidated, type WriteDeps } from '../http/write-input.ts';
import { KEY_ID_PATTERN } from './format.ts';
import { type ApiKey, versionOf } from './model.ts';
import { presentApiKey, presentCreatedApiKey } from './presenter.ts';
import type { ApiKeyUseCases } from './use-cases.ts';
import { validateNewApiKey } from './validate.ts';

const PATH = '/api/keys';
// The kind of a key's representation, as the API versions change it (docs/versions.md).
const KIND = 'keys';

// The 201 carries the key, which exists nowhere else: a response that must never be stored for replay.
const NO_REPLAY_DETAIL = 'POST /api/keys takes no Idempotency-Key: its response carries the new key, which is never stored for a replay.';
const NO_REPLAY = new HttpError('invalid_header', {
  detail: NO_REPLAY_DETAIL,
  errors: [{ parameter: 'Idempotency-Key', code: 'invalid', detail: NO_REPLAY_DETAIL }],
});

function idOf(ctx: RequestContext): string {
  const id = ctx.params['id'] ?? '';
  if (!KEY_ID_PATTERN.test(id)) throw notFound();
  return id;
}

function notFound(): HttpError {
  return new HttpError('not_found', { detail: 'No API key has this id.' });
}

function createKeyHandler(keys: ApiKeyUseCases, writes: WriteDeps, remember: (apiKey: ApiKey) => void): Handler {
  return async (ctx) => {
    checkBodyHeaders(ctx.req, ['application/json']);
    if (ctx.req.headers['idempotency-key'] !== undefined) throw NO_REPLAY;
    const { input } = await readValidated(ctx.req, writes.bodyLimitBytes, (body) => validateNewApiKey(body, keys.now()));
    const { apiKey, key } = await writes.storage.singleWrite((tx) => keys.create(tx, input));
    remember(apiKey);
    return created(`${PATH}/${apiKey.id}`, ctx.version.downgrade(KIND, presentCreatedApiKey(apiKey, key)), entityTag(versionOf(apiKey), ctx.version.tagSuffix(KIND)));
  };
}

function readKeyHandler(keys: ApiKeyUseCases): Handler {
  return async (ctx) => {
    const id = idOf(ctx);
    const suffix = ctx.version.tagSuffix(KIND);
    const preconditions = parsePreconditions(ctx.req.headers, suffix);
    const apiKey = await keys.get(id);
    if (apiKey === undefined) throw notFound();
    const etag = entityTag(versionOf(apiKey), suffix);
    const verdict = preconditions.forRead(versionOf(apiKey));
    if (verdict === 'failed') throw new HttpError('precondition_failed');
    if (verdict === 'not_modified') return { status: 304, headers: { etag } };
    return { status: 200, body: ctx.version.downgrade(KIND, presentApiKey(apiKey)), headers: { etag } };
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

/**
 * Registers the keys endpoints (SVC_AUTH=keys), each for `admin` callers: thin handlers from HTTP to
 * use cases and back. `remember` tells this process's key check of a key made or revoked here.
 */
export function addKeyRoutes(router: Router<Handler>, keys: ApiKeyUseCases, writes: WriteDeps, remember: (apiKey: ApiKey) => void): void {
  router.add('GET', PATH, Scope.admin, async (ctx) => {
    refuseMalformedPreconditions(ctx.req.headers);
    const request = parsePageRequest('keys', ctx.query);
    const page = await keys.list(request);
    const link = nextLink(PATH, 'keys', request, page);
    return listReply(ctx.version, page.items.map((apiKey) => ctx.version.downgrade(KIND, presentApiKey(apiKey))), link);
  });
  router.add('POST', PATH, Scope.admin, createKeyHandler(keys, writes, remember));
  router.add('GET', `${PATH}/{id}`, Scope.admin, readKeyHandler(keys));
  router.add('DELETE', `${PATH}/{id}`, Scope.admin, revokeKeyHandler(keys, writes, remember));
}

import type { Repositories } from '../db/storage.ts';
import { fingerprintOf, type IdempotentOutcome, type RecordedResponse } from '../idempotency/idempotent-write.ts';
import type { Validated } from '../shared/validation.ts';
import { parseIdempotencyKey } from './idempotency-key.ts';
import type { Handler, Reply } from './reply.ts';
import { checkBodyHeaders, readValidated, type WriteDeps } from './write-input.ts';
import type { VersionView } from '../versions/api-versions.ts';

// POST bodies are plain JSON (docs/api.md, Requests that create).
const CREATE_TYPES = ['application/json'];

/** One create endpoint: its validator and the write it makes, each in the request's API version. */
export interface CreateSpec<I> {
  validate(body: unknown, version: VersionView): Validated<I>;
  /**
   * Makes the resource with exactly one statement (an INSERT): without an Idempotency-Key it runs as a
   * single write (autocommit on PostgreSQL), with one inside the transaction that stores the response.
   */
  execute(tx: Repositories, input: I, version: VersionView): Promise<Reply>;
  /** False when the create reads before it writes (a resource's checks): it then runs in a transaction. True by default. */
  oneStatement?: boolean;
}

function recorded(reply: Reply): RecordedResponse {
  const headers = reply.headers ?? {};
  return { status: reply.status, location: headers['location'] ?? null, etag: headers['etag'] ?? null, body: reply.json ?? JSON.stringify(reply.body) };
}

function replyOf({ replayed, response }: IdempotentOutcome): Reply {
  const headers: Record<string, string> = {};
  if (response.location !== null) headers['location'] = response.location;
  if (response.etag !== null) headers['etag'] = response.etag;
  if (replayed) headers['idempotent-replayed'] = 'true';
  return { status: response.status, json: response.body, headers };
}

/** A POST handler: coding and media type, size limit, JSON, validation, then a durable (optionally idempotent) write. */
export function createHandler<I>(deps: WriteDeps, spec: CreateSpec<I>): Handler {
  return async (ctx) => {
    checkBodyHeaders(ctx.req, CREATE_TYPES);
    const key = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
    const { version } = ctx;
    const validate = (body: unknown): Validated<I> => spec.validate(body, version);
    if (key === null) {
      const { input } = await readValidated(ctx.req, deps.bodyLimitBytes, validate);
      // One INSERT commits by itself: no transaction to open (PostgreSQL saves two round trips).
      const work = (tx: Repositories): Promise<Reply> => spec.execute(tx, input, version);
      return spec.oneStatement === false ? deps.storage.transaction(work) : deps.storage.singleWrite(work);
    }
    // A key belongs to its caller (docs/api.md, Idempotent creates): the same key from two callers names two requests.
    const scope = ctx.caller === null ? `${ctx.method} ${ctx.path}` : `${ctx.caller.kind}:${ctx.caller.id} ${ctx.method} ${ctx.path}`;
    // Claimed before the body is read: a retry sent while the first is still arriving gets 409.
    const release = deps.idempotency.claim(scope, key);
    try {
      const { body, input } = await readValidated(ctx.req, deps.bodyLimitBytes, validate);
      // The version is part of the request: the same key in another version is another request (422).
      const target = { scope, key, fingerprint: fingerprintOf(scope, body, version === version.first ? '' : version.id) };
      const outcome = await deps.storage.transaction((tx) =>
        deps.idempotency.runOnce(tx, target, async () => recorded(await spec.execute(tx, input, version))),
      );
      return replyOf(outcome);
    } finally {
      release();
    }
  };
}

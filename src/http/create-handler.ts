import type { IncomingMessage } from 'node:http';
import type { Repositories, Storage } from '../db/storage.ts';
import { fingerprintOf, type IdempotentOutcome, type IdempotentWrites, type RecordedResponse } from '../idempotency/idempotent-write.ts';
import type { Validated } from '../shared/validation.ts';
import { isJsonContentType, parseJson, readBody } from './body.ts';
import { HttpError } from './errors.ts';
import { parseIdempotencyKey } from './idempotency-key.ts';
import type { Handler, Reply } from './reply.ts';

/** What every write shares: the storage it runs in, idempotency keys, and how large a body may be. */
export interface WriteDeps {
  storage: Storage;
  idempotency: IdempotentWrites;
  bodyLimitBytes: number;
}

/** One create endpoint: its validator and the write it makes (run inside the transaction). */
export interface CreateSpec<I> {
  validate(body: unknown): Validated<I>;
  execute(tx: Repositories, input: I): Promise<Reply>;
}

/** 422 validation_failed with every field error of a failed validation. */
export function validationFailed(errors: Validated<never> & { ok: false }): HttpError {
  const count = errors.errors.length;
  const detail = count === 1 ? 'The request body has 1 invalid field.' : `The request body has ${count} invalid fields.`;
  return new HttpError('validation_failed', { detail, errors: errors.errors });
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

/** A POST handler: media type, size limit, JSON, validation, then a durable (optionally idempotent) write. */
export function createHandler<I>(deps: WriteDeps, spec: CreateSpec<I>): Handler {
  const readInput = async (req: IncomingMessage): Promise<{ body: unknown; input: I }> => {
    const body = parseJson(await readBody(req, deps.bodyLimitBytes));
    const result = spec.validate(body);
    if (!result.ok) throw validationFailed(result);
    return { body, input: result.value };
  };
  return async (ctx) => {
    if (!isJsonContentType(ctx.req.headers['content-type'])) throw new HttpError('unsupported_media_type');
    const key = parseIdempotencyKey(ctx.req.headers['idempotency-key']);
    if (key === null) {
      const { input } = await readInput(ctx.req);
      return deps.storage.transaction((tx) => spec.execute(tx, input));
    }
    // A key belongs to its caller: the same key from two callers names two requests.
    const scope = ctx.caller === null ? `${ctx.method} ${ctx.path}` : `${ctx.caller.kind}:${ctx.caller.id} ${ctx.method} ${ctx.path}`;
    // Claimed before the body is read: a retry sent while the first is still arriving gets 409.
    const release = deps.idempotency.claim(scope, key);
    try {
      const { body, input } = await readInput(ctx.req);
      const target = { scope, key, fingerprint: fingerprintOf(scope, body) };
      const outcome = await deps.storage.transaction((tx) =>
        deps.idempotency.runOnce(tx, target, async () => recorded(await spec.execute(tx, input))),
      );
      return replyOf(outcome);
    } finally {
      release();
    }
  };
}

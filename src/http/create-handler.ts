import type { IncomingMessage } from 'node:http';
import type { WriteBatcher } from '../db/write-batcher.ts';
import { fingerprintOf, type IdempotentCreates, parseIdempotencyKey } from '../idempotency/idempotent-create.ts';
import type { Validated } from '../shared/validation.ts';
import { isJsonContentType, parseJson, readBody } from './body.ts';
import { HttpError } from './errors.ts';
import type { Handler, Reply } from './reply.ts';

/** What every create shares: where writes go and how large a body may be. */
export interface CreateDeps {
  writes: WriteBatcher;
  idempotency: IdempotentCreates;
  bodyLimitBytes: number;
}

/** One create endpoint: its validator and the write it makes (run inside the shared transaction). */
export interface CreateSpec<I> {
  validate(body: unknown): Validated<I>;
  execute(input: I): Reply;
}

function validationFailed(errors: Validated<never> & { ok: false }): HttpError {
  const count = errors.errors.length;
  const detail = count === 1 ? 'The request body has 1 invalid field.' : `The request body has ${count} invalid fields.`;
  return new HttpError('validation_failed', { detail, errors: errors.errors });
}

/** A POST handler: media type, size limit, JSON, validation, then a durable (optionally idempotent) write. */
export function createHandler<I>(deps: CreateDeps, spec: CreateSpec<I>): Handler {
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
      return deps.writes.run(() => spec.execute(input));
    }
    const scope = `${ctx.method} ${ctx.path}`;
    // Claimed before the body is read: a retry sent while the first is still arriving gets 409.
    const release = deps.idempotency.claim(scope, key);
    try {
      const { body, input } = await readInput(ctx.req);
      return await deps.idempotency.run(scope, key, fingerprintOf(scope, body), () => spec.execute(input));
    } finally {
      release();
    }
  };
}

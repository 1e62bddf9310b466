// What both Fastify peers share: the app with the service's rules (no coercion, unknown members are
// errors, every error reported), request ids, security headers, the product representation, cursors
// and the input rules no JSON schema can express. LOGGER=pino turns on pino at info on stdout.
// AUTH=keys|jwt: the product routes are guarded by @fastify/bearer-auth with a custom `auth`
// function doing the service's credential check (peers/credentials.js), and a scope check after it.
import { createHash, randomUUID } from 'node:crypto';
import bearerAuth from '@fastify/bearer-auth';
import Fastify from 'fastify';
import pino from 'pino';
import { allows, AUTH, checkFor } from './credentials.js';
import { SECURITY_HEADERS } from './headers.js';

/** The schema version the peer's database must have for ping to answer 200 (that of our build). */
export const EXPECTED_VERSION = Number(process.env.EXPECTED_VERSION ?? 2);

/** A Fastify 5 app with the service's headers and request ids. */
export function createApp() {
  const app = Fastify({
    ...(process.env.LOGGER === 'pino' ? { loggerInstance: pino({ level: 'info' }) } : { logger: false }),
    genReqId: (req) => {
      const id = req.headers['x-request-id'];
      return typeof id === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : randomUUID();
    },
    keepAliveTimeout: 65_000,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    reply.header('x-request-id', request.id);
    done();
  });
  return app;
}

const problemOf = (status, code, detail) => ({ type: 'about:blank', title: status === 401 ? 'Unauthorized' : 'Forbidden', status, code, detail });

/**
 * Registers the routes `register` adds: as they are with AUTH=off; with AUTH=keys|jwt in a scope of
 * their own behind bearer-auth (`findKey(id)`: the key's row, for keys) and each route's
 * `config.scope`. Routes registered outside stay open, as GET /api/ping is in the service.
 */
export function guardedRoutes(app, findKey, register) {
  const check = checkFor(findKey);
  if (AUTH === 'off') return register(app);
  app.register(async (scope) => {
    await scope.register(bearerAuth, {
      contentType: 'application/problem+json',
      errorResponse: () => problemOf(401, 'unauthorized', 'The credential is not valid.'),
      // The credential's caller is kept for the scope check; only a valid one passes.
      auth(credential, request) {
        const settle = (identified) => {
          if (identified.ok) request.caller = identified.caller;
          return identified.ok;
        };
        const identified = check(credential);
        return identified instanceof Promise ? identified.then(settle) : settle(identified);
      },
    });
    scope.addHook('onRequest', (request, reply, done) => {
      if (allows(request.caller.scopes, request.routeOptions.config.scope)) return done();
      reply.code(403).header('content-type', 'application/problem+json').header('www-authenticate', 'Bearer error="insufficient_scope"');
      reply.send(problemOf(403, 'forbidden', 'This operation needs another scope.'));
    });
    register(scope);
  });
}

/** The ping body for a database at `version` (null: unreachable), and its status code. */
export function pingOf(version) {
  if (version === null) return { code: 503, body: { status: 2, checks: { database: 2, schema: 2 } } };
  const schema = version === EXPECTED_VERSION ? 1 : 2;
  return { code: schema === 1 ? 200 : 503, body: { status: schema, checks: { database: 1, schema } } };
}

// The service's cursor: the list's name and the id, with a 4-byte checksum (src/shared/paging.ts).
const checksumOf = (text) => createHash('sha256').update(text).digest().subarray(0, 4);
const cursorOf = (id) => Buffer.concat([Buffer.from(`products:${id}`, 'latin1'), checksumOf(`products:${id}`)]).toString('base64url');

/** The page asked for ({ limit, beforeId }), or null when the query is wrong. */
export function pageRequestOf(query) {
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (limit < 1 || limit > 200) return null;
  if (query.cursor === undefined) return { limit, beforeId: Number.MAX_SAFE_INTEGER };
  const bytes = Buffer.from(query.cursor, 'base64url');
  const text = bytes.subarray(0, -4).toString('latin1');
  const match = /^products:([1-9]\d{0,15})$/.exec(text);
  return match === null || !bytes.subarray(-4).equals(checksumOf(text)) ? null : { limit, beforeId: Number(match[1]) };
}

/** Cuts the extra row fetched to learn whether a next page exists, and sets the Link header then. */
export function linkNextPage(reply, items, limit, idOf) {
  if (items.length <= limit) return items;
  items.length = limit;
  reply.header('link', `</api/products?limit=${limit}&cursor=${cursorOf(idOf(items[limit - 1]))}>; rel="next"`);
  return items;
}

/** The new product from a body that passed the schema, or null when the trimmed name is out of bounds. */
export function newProductOf(body) {
  const name = body.name.trim();
  // JSON schema cannot trim; the length rule applies to the trimmed name, in code points.
  const length = [...name].length;
  if (length < 1 || length > 200) return null;
  const at = new Date().toISOString();
  return { name, priceInCents: body.priceInCents, status: body.status ?? 1, createdAt: at, updatedAt: at };
}

/** Answers a create as the service does: 201, Location, ETag of version 1. */
export function created(reply, id, product) {
  reply.code(201).header('location', `/api/products/${id}`).header('etag', '"1"');
  return { id, ...product };
}

/** Listens on PORT and closes on SIGTERM, running `onClose` (the pool's end) after the app's. */
export async function listen(app, onClose = async () => {}) {
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.once('SIGTERM', () => app.close().then(onClose).then(() => process.exit(0)));
}

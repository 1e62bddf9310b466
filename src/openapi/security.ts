import { nameOfScope, Scope, SCOPE_NAMES } from '../callers/scopes.ts';
import { tokenGuardsRoute } from '../http/auth.ts';
import type { Access } from '../http/router.ts';
import { KEY_LENGTH } from '../keys/format.ts';
import type { DocumentedAuth } from './options.ts';
import type { JsonObject } from './schemas.ts';

/** The kinds of operation that change something: POST, PATCH and DELETE, which SVC_API_TOKEN guards (with every admin operation). */
export const WRITE_KINDS: readonly string[] = ['create', 'change', 'remove', 'action'];

// One scheme per document: the one credential the service runs with.
const SCHEME_NAMES = { off: 'bearerAuth', keys: 'apiKey', jwt: 'accessToken' } as const;
const CREDENTIAL_NAMES = { keys: 'an API key', jwt: 'an access token' } as const;

/** Whether a credential is checked on an operation of `kind` with `access`, so that it can answer 401. */
export function credentialChecked(kind: string, access: Access, auth: DocumentedAuth): boolean {
  if (auth.mode === 'off') return auth.token && (WRITE_KINDS.includes(kind) || tokenGuardsRoute(access));
  return access !== 'open';
}

/**
 * Whether a valid credential can lack the scope `access` names, so that it can answer 403: every key
 * holds at least one scope, so at least `read`; a token may grant none of this service's scopes.
 */
export function scopeCanFail(access: Access, auth: DocumentedAuth): boolean {
  if (auth.mode === 'off' || access === 'open') return false;
  const least = auth.mode === 'keys' ? Scope.read : 0;
  return access > least;
}

/** An operation's `security`: the scheme with the scope its route needs (OpenAPI 3.1 role names), or `[]` when open. */
export function securityOf(kind: string, access: Access, auth: DocumentedAuth): JsonObject[] {
  if (!credentialChecked(kind, access, auth)) return [];
  const scopes = auth.mode === 'off' || access === 'open' ? [] : [nameOfScope(access)];
  return [{ [SCHEME_NAMES[auth.mode]]: scopes }];
}

/** The scopes that allow an operation needing `needed`, in words: `` `read`, `write` or `admin` ``. */
function allowingScopes(needed: Scope): string {
  const names = SCOPE_NAMES.slice(needed - 1).map((name) => `\`${name}\``);
  return names.length === 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

/** The sentence an operation's description ends with, saying what it needs; '' when nothing is checked. */
export function accessSentence(access: Access, auth: DocumentedAuth): string {
  if (auth.mode === 'off') return '';
  if (access === 'open') return 'Open: needs no credential.';
  return `Needs the \`${nameOfScope(access)}\` scope: ${CREDENTIAL_NAMES[auth.mode]} with ${allowingScopes(access)}.`;
}

/** The `WWW-Authenticate` header of the 403 of an operation needing `needed` (RFC 6750 §3.1). */
export function insufficientScopeHeader(needed: Scope): JsonObject {
  const challenge = `Bearer error="insufficient_scope", scope="${nameOfScope(needed)}"`;
  return { description: 'RFC 6750: the scope this operation needs.', required: true, schema: { type: 'string', const: challenge } };
}

/** `components.headers.WwwAuthenticate`: the challenge of every 401, as this mode words it. */
export function challengeHeader(auth: DocumentedAuth): JsonObject {
  if (auth.mode === 'off') {
    return { description: 'RFC 6750: always a bare `Bearer`, whether the token was missing or wrong.', required: true, schema: { type: 'string', const: 'Bearer' } };
  }
  const told = auth.mode === 'keys' ? 'a holder of the whole credential (expired, revoked)' : 'the holder of a validly signed token (expired)';
  return {
    description:
      'RFC 6750: a bare `Bearer` when no credential came; `Bearer error="invalid_token", error_description="…"` when one came and is not ' +
      `valid. Which check failed is told only to ${told}.`,
    required: true,
    schema: { type: 'string', pattern: '^Bearer( error="invalid_token", error_description="[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]*")?$' },
  };
}

// Why a credential is refused, as each mode can tell: a key is looked up, so it can be revoked; a token
// is judged by itself, and the provider is never asked about it.
const REFUSALS = {
  keys: 'missing, malformed, unknown, expired or revoked',
  jwt: "missing, malformed, not verified by a key of the issuer's JWKS, of another issuer or audience, expired or not yet valid",
} as const;
const NOT_LOOKED_UP = 'A token revoked at the provider is still taken until it expires: the service does not ask the provider about tokens.';

// What each scope allows is said on each operation, from its route: nothing here can drift from the router.
const SCOPES_TEXT = 'Scopes: `read`, `write` (includes `read`) and `admin` (includes `write`); each operation says which one it needs.';

function keysText(): string {
  return (
    `An API key: one opaque string of ${KEY_LENGTH} characters, \`svc_\`, the key's public id (12 of [0-9A-Za-z]), \`_\`, ` +
    'then 49 of [0-9A-Za-z] (a 256-bit secret and a checksum); secret scanners can match `svc_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}`. ' +
    'A key is shown once, when it is made: the first `admin` key with `node bin/keys.js create --name NAME --scopes admin` where the ' +
    'service runs, then others with `POST /api/keys` by an `admin` key. ' +
    SCOPES_TEXT
  );
}

function jwtText(issuer: string, audience: string): string {
  return (
    `A JWT access token (RFC 9068) from the OpenID Connect provider \`${issuer}\`, issued for the audience \`${audience}\`: signed by a ` +
    'key of the issuer\'s JWKS (RS256, PS256, ES256 or EdDSA), unexpired, with this service\'s scopes in `scope` (space-separated) or `scp`. ' +
    'Get one from that provider (its token endpoint is in its OpenID discovery document, ' +
    `\`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration\`): a program by the client-credentials grant, a person by signing in. ` +
    SCOPES_TEXT
  );
}

/** `components.securitySchemes`: the one bearer scheme the service runs with, or none when nothing is checked. */
export function securitySchemes(auth: DocumentedAuth): JsonObject | undefined {
  if (auth.mode === 'off') {
    if (!auth.token) return undefined;
    return {
      bearerAuth: {
        type: 'http', scheme: 'bearer',
        description: 'The value of SVC_API_TOKEN; required on every POST, PATCH and DELETE, and on every operation of `/api/webhooks` and the paths below it, when it is set.',
      },
    };
  }
  if (auth.mode === 'keys') return { apiKey: { type: 'http', scheme: 'bearer', description: keysText() } };
  return { accessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: jwtText(auth.issuer, auth.audience) } };
}

/** The paragraph of `info.description` on credentials, as configured. */
export function credentialsParagraph(auth: DocumentedAuth): string {
  if (auth.mode === 'off') {
    if (!auth.token) return '**Credentials**: none; every operation is open.';
    return (
      '**Credentials**: every POST, PATCH and DELETE needs `Authorization: Bearer <token>` with the one token this service is ' +
      'configured with, and so does every operation of `/api/webhooks` and the paths below it (webhook URLs often carry tokens); ' +
      'other reads are open. Without it, or with another, the answer is 401 `unauthorized` with `WWW-Authenticate: Bearer`.'
    );
  }
  const what = auth.mode === 'keys' ? keysText() : jwtText(auth.issuer, auth.audience);
  return (
    `**Credentials**: every operation but readiness, this document and its page needs \`Authorization: Bearer <credential>\`. ${what} ` +
    `Without a valid one (${REFUSALS[auth.mode]}) the answer is 401 \`unauthorized\` with \`WWW-Authenticate\`, ` +
    'before anything about the path is told: an unknown path or a method the path does not serve is 401 too. A valid one without ' +
    'the scope an operation needs is 403 `forbidden` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`. ' +
    `A refused request changes nothing.${auth.mode === 'jwt' ? ` ${NOT_LOOKED_UP}` : ''}`
  );
}

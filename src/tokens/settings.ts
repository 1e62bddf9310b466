import { type AuthMode, type Env, fail } from '../shared/settings.ts';

/** Where access tokens come from, for SVC_AUTH=jwt (empty strings otherwise). */
export interface JwtSettings {
  /** The `iss` a token must carry, exactly. */
  issuer: string;
  /** The `aud` a token must carry (one of its audiences). */
  audience: string;
  /** The issuer's JWKS; '' to find it in the issuer's OpenID discovery document. */
  jwksUrl: string;
}

/** Whether an identity provider's keys may be fetched from `url`: https, or http on a loopback host. */
export function isProviderUrl(url: URL): boolean {
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname.toLowerCase());
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
}

// http: only for a host that never leaves this machine (a local provider, tests); the token's keys
// must not travel where anyone on the path could replace them.
function providerUrl(env: Env, name: string, required: boolean): string {
  const raw = (env[name] ?? '').trim();
  if (raw === '') {
    if (required) fail(name, raw, 'an https:// URL (http:// only for a loopback host), required with SVC_AUTH=jwt');
    return '';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(name, raw, 'an https:// URL (http:// only for a loopback host)');
  }
  if (!isProviderUrl(url)) fail(name, raw, 'an https:// URL (http:// only for 127.0.0.1, [::1] or localhost)');
  return raw;
}

/** Parses SVC_JWT_ISSUER, SVC_JWT_AUDIENCE and SVC_JWT_JWKS_URL (required with SVC_AUTH=jwt). */
export function parseJwtSettings(env: Env, auth: AuthMode): JwtSettings {
  const audience = (env['SVC_JWT_AUDIENCE'] ?? '').trim();
  if (auth === 'jwt' && audience === '') fail('SVC_JWT_AUDIENCE', audience, 'the audience tokens are issued for, required with SVC_AUTH=jwt');
  return { issuer: providerUrl(env, 'SVC_JWT_ISSUER', auth === 'jwt'), audience, jwksUrl: providerUrl(env, 'SVC_JWT_JWKS_URL', false) };
}

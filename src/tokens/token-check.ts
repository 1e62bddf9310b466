import { type CredentialCheck, type Identified, refused } from '../callers/caller.ts';
import type { JwtSettings } from './settings.ts';
import { ALGORITHM_RULES } from './algorithms.ts';
import { checkClaims } from './claims.ts';
import { jsonObject, parseCompactJws, type SignedToken } from './compact-jws.ts';
import { chooseKey, type KeySet } from './key-set.ts';
import { RemoteKeys } from './remote-keys.ts';
import { VerdictCache } from './verdict-cache.ts';

/** How the token check runs; everything but the request timeout has the documented default. */
export interface TokenCheckOptions {
  /** SVC_REQUEST_TIMEOUT_MS: a request waiting for the issuer's keys never waits longer than a third of it. */
  readonly requestTimeoutMs: number;
  /** Told when the issuer's keys could not be fetched (the cached ones stay in use). */
  readonly onKeysUnavailable?: (error: Error) => void;
  /** The clock, in milliseconds (Date.now by default). */
  readonly now?: () => number;
  /** The least time between two JWKS fetches (30 s). */
  readonly cooldownMs?: number;
  /** The age at which held keys are refreshed in the background (10 minutes). */
  readonly maxKeyAgeMs?: number;
}

/** At most one JWKS fetch per 30 s (docs/security.md), so a new key is found at most 30 s after the last fetch. */
export const JWKS_COOLDOWN_MS = 30_000;
/** Held keys are fetched again after this, so a key the issuer withdraws stops working within it. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;
/** The longest wait for the issuer's documents, whatever the request timeout. */
export const JWKS_TIMEOUT_MS = 5_000;

const EXPIRED_DETAIL = 'The access token has expired.';

function remoteKeysFor(settings: JwtSettings, options: TokenCheckOptions, now: () => number, onReplaced: () => void): RemoteKeys {
  return new RemoteKeys({
    issuer: settings.issuer,
    jwksUrl: settings.jwksUrl,
    timeoutMs: Math.min(JWKS_TIMEOUT_MS, Math.max(100, Math.floor(options.requestTimeoutMs / 3))),
    cooldownMs: options.cooldownMs ?? JWKS_COOLDOWN_MS,
    maxAgeMs: options.maxKeyAgeMs ?? JWKS_MAX_AGE_MS,
    now,
    onFailure: options.onKeysUnavailable ?? (() => {}),
    onReplaced,
  });
}

/**
 * The access-token check of SVC_AUTH=jwt (docs/security.md, Access tokens): a JWT access token (RFC 9068), verified in a
 * fixed order (shape, header, key, signature, then claims) against the issuer's JWKS. Synchronous
 * whenever the signing key is held; it waits only for a fetch of the issuer's keys.
 */
export function createTokenCheck(settings: JwtSettings, options: TokenCheckOptions): CredentialCheck {
  const now = options.now ?? Date.now;
  const verdicts = new VerdictCache();
  // A withdrawn key must take its tokens' verdicts with it.
  const keys = remoteKeysFor(settings, options, now, () => verdicts.clear());

  // Signature, then claims: a token whose key is held.
  function verifyWith(token: string, signed: SignedToken, set: KeySet): Identified | 'absent' {
    const choice = chooseKey(set, signed.alg, signed.kid);
    if (choice.kind === 'absent') return 'absent';
    if (choice.kind === 'unfit') return refused('invalid');
    if (!ALGORITHM_RULES[signed.alg].verify(signed.signingInput, choice.key, signed.signature)) return refused('invalid');
    const claims = jsonObject(signed.payload);
    if (claims === null) return refused('malformed');
    const verdict = checkClaims(claims, settings, Math.floor(now() / 1000));
    if (!verdict.ok) return verdict.reason === 'expired' ? refused('expired', EXPIRED_DETAIL) : refused('invalid');
    verdicts.set(token, verdict.caller, verdict.usableUntil);
    return { ok: true, caller: verdict.caller };
  }

  // No key fits the token's kid: fetch the JWKS again (at most once per cooldown), then look once more.
  function afterRefetch(token: string, signed: SignedToken): Identified | Promise<Identified> {
    const fetched = keys.refetch();
    const unknown = (): Identified => refused(keys.failing ? 'unverifiable' : 'unknown');
    if (fetched === null) return unknown();
    return fetched.then(() => {
      const set = keys.current();
      const result = set === null ? 'absent' : verifyWith(token, signed, set);
      return result === 'absent' ? unknown() : result;
    });
  }

  return {
    identify(token) {
      const cached = verdicts.get(token, Math.floor(now() / 1000));
      if (cached !== undefined) return { ok: true, caller: cached };
      const signed = parseCompactJws(token);
      if (typeof signed === 'string') return refused(signed);
      const set = keys.current();
      const result = set === null ? 'absent' : verifyWith(token, signed, set);
      return result === 'absent' ? afterRefetch(token, signed) : result;
    },
  };
}

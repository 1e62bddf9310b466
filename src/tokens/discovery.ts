import { isProviderUrl } from './settings.ts';
import { fetchJson, KeyFetchError } from './fetch-json.ts';

/** Where OpenID Connect Discovery 1.0 (§4) puts an issuer's configuration: its URL without a final `/`, then this. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/**
 * The `jwks_uri` of `issuer`'s discovery document. The document must name the same issuer exactly
 * (Discovery §4.3), so a document served elsewhere cannot point the service at other keys.
 */
export async function discoverJwksUrl(issuer: string, signal: AbortSignal): Promise<string> {
  const url = `${issuer.replace(/\/$/, '')}${DISCOVERY_PATH}`;
  const document = await fetchJson(url, signal);
  if (typeof document !== 'object' || document === null || !('issuer' in document) || document.issuer !== issuer) {
    throw new KeyFetchError(`${url} does not name the issuer ${issuer}`);
  }
  const jwksUri = 'jwks_uri' in document ? document.jwks_uri : undefined;
  if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri) || !isProviderUrl(new URL(jwksUri))) {
    throw new KeyFetchError(`${url} has no jwks_uri that is an https:// URL (http:// only for a loopback host)`);
  }
  return jwksUri;
}

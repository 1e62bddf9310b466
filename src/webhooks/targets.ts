import { isIPv4 } from 'node:net';
import { forbiddenRange } from './addresses.ts';

export { forbiddenRange, isForbiddenAddress } from './addresses.ts';

/** The longest webhook URL accepted, as given and as the URL parser writes it. */
export const MAX_URL_LENGTH = 2048;

/** A webhook URL checked for creation or delivery: the parsed URL, or the field error code and a detail for people. */
export type TargetCheck = { ok: true; url: URL } | { ok: false; code: 'invalid_url' | 'forbidden_target'; detail: string };

// Names that only this machine or its local network answer (RFC 6761, RFC 6762, RFC 8375, and ICANN's
// private-use .internal); the rest are resolved and their addresses checked at delivery.
const LOCAL_NAMES = ['localhost', 'local', 'internal', 'home.arpa'];

const invalid = (detail: string): TargetCheck => ({ ok: false, code: 'invalid_url', detail });
const forbidden = (detail: string): TargetCheck => ({ ok: false, code: 'forbidden_target', detail });

// White space and controls are refused rather than dropped as the URL parser would: what is stored
// and shown must be what was meant.
function parse(raw: string): URL | TargetCheck {
  if (raw.length > MAX_URL_LENGTH) return invalid(`url must be at most ${MAX_URL_LENGTH} characters`);
  if (/[\u0000-\u0020\u007f]/.test(raw)) return invalid('url must not contain white space or control characters');
  if (!URL.canParse(raw)) return invalid('url must be an absolute http: or https: URL');
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid('url must be an absolute http: or https: URL');
  if (url.href.length > MAX_URL_LENGTH) return invalid(`url must be at most ${MAX_URL_LENGTH} characters once normalized`);
  if (url.username !== '' || url.password !== '') return invalid('url must not contain a user or password');
  if (url.href.includes('#')) return invalid('url must not contain a fragment');
  if (url.port === '0') return invalid('url must not name port 0');
  // One trailing dot names the root (a fully qualified name); more leave an empty label, which no
  // name has (`127.0.0.1..` is not an address to the parser, and no resolver should be asked for it).
  if (url.hostname.endsWith('..')) return invalid('url\'s host must not end in more than one dot');
  return url;
}

/** Why a parsed URL's host is refused by default, or null: names are judged here, addresses by their range. */
function hostProblem(url: URL): string | null {
  const host = url.hostname;
  if (host.startsWith('[')) {
    const range = forbiddenRange(host.slice(1, -1));
    return range === null ? null : `url's host ${host} is ${range}`;
  }
  // The URL parser has already turned every IPv4 spelling (2130706433, 0x7f.1, 127.1, a trailing dot) into a.b.c.d.
  if (isIPv4(host)) {
    const range = forbiddenRange(host);
    return range === null ? null : `url's host ${host} is ${range}`;
  }
  // The trailing dot of a fully qualified name goes (`localhost.` is `localhost`); parse() refused more than one.
  const name = host.replace(/\.$/, '');
  const local = LOCAL_NAMES.find((suffix) => name === suffix || name.endsWith(`.${suffix}`));
  if (local !== undefined) return `url's host ${host} is a local name (${local})`;
  return name.includes('.') ? null : `url's host ${host} is a name without a domain, which only a local network resolves`;
}

/**
 * Checks a webhook URL (docs/webhooks.md, Targets): absolute http: or https:, at most 2,048 characters,
 * no user, password or fragment; unless `allowPrivate`, https: only and no local name or address.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): TargetCheck {
  const url = parse(raw);
  if (!(url instanceof URL)) return url;
  if (allowPrivate) return { ok: true, url };
  if (url.protocol !== 'https:') return forbidden('url must be an https: URL');
  const problem = hostProblem(url);
  return problem === null ? { ok: true, url } : forbidden(problem);
}

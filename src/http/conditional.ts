import type { IncomingHttpHeaders } from 'node:http';
import type { Precondition } from '../shared/changes.ts';
import { HttpError } from './errors.ts';

/**
 * The strong entity tag of a resource at `version` (RFC 9110 §8.8.3): `"3"`; `suffix` tells the
 * representations of an API version that shows the resource otherwise apart (`"3.1"`, docs/versions.md).
 */
export function entityTag(version: number, suffix = ''): string {
  return `"${version}${suffix}"`;
}

interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `*` (any current representation) or a list of entity tags, as If-Match and If-None-Match carry them. */
type TagList = '*' | readonly EntityTag[];

// One list member and the separator after it: `*`, or `W/"…"` / `"…"` with etagc characters
// (%x21 / %x23-7E / obs-text; a comma may stand inside the quotes), or an empty element, which
// RFC 9110 §5.6.1 lets a list have.
const MEMBER = /[ \t]*(?:(\*)|(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?[ \t]*(?:,|$)/y;

// `*`, or the list of tags; null when the field is malformed.
function parseList(header: string): TagList | null {
  const tags: EntityTag[] = [];
  let any = false;
  MEMBER.lastIndex = 0;
  while (MEMBER.lastIndex < header.length) {
    const match = MEMBER.exec(header);
    if (match === null || match[0] === '') return null;
    if (match[1] !== undefined) any = true;
    else if (match[3] !== undefined) tags.push({ weak: match[2] !== undefined, opaque: match[3] });
  }
  if (any) return tags.length === 0 ? '*' : null;
  return tags.length === 0 ? null : tags;
}

function malformed(name: string): HttpError {
  const detail = `${name} must be * or a list of entity tags such as "3" (quotes included).`;
  return new HttpError('invalid_header', { detail, errors: [{ parameter: name, code: 'invalid', detail }] });
}

// Repeated header lines arrive joined by node:http, or as an array from an embedding host.
function listOf(name: string, header: string | string[] | undefined): TagList | undefined {
  if (header === undefined) return undefined;
  const list = parseList(Array.isArray(header) ? header.join(', ') : header);
  if (list === null) throw malformed(name);
  return list;
}

// RFC 9110 §8.8.3.2: strong comparison needs both tags strong; weak comparison ignores W/.
function matches(list: TagList, tag: string, comparison: 'strong' | 'weak'): boolean {
  if (list === '*') return true;
  return list.some((member) => member.opaque === tag && (comparison === 'weak' || !member.weak));
}

/**
 * GET and HEAD of a representation that is no versioned resource (a page of the event feed), by its
 * strong entity tag: If-Match, then If-None-Match, as RFC 9110 §13.2.2 orders them.
 */
export function readVerdictFor(headers: IncomingHttpHeaders, tag: string): PreconditionVerdict {
  const ifMatch = listOf('If-Match', headers['if-match']);
  const ifNoneMatch = listOf('If-None-Match', headers['if-none-match']);
  if (ifMatch !== undefined && !matches(ifMatch, tag, 'strong')) return 'failed';
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, tag, 'weak')) return 'not_modified';
  return 'proceed';
}

/**
 * A list has no entity tag, so its If-Match and If-None-Match decide nothing; a malformed one is still
 * 400 invalid_header, as on every resource (a request is never guessed into being unconditional).
 */
export function refuseMalformedPreconditions(headers: IncomingHttpHeaders): void {
  listOf('If-Match', headers['if-match']);
  listOf('If-None-Match', headers['if-none-match']);
}

/** What a request's preconditions decide for a resource that exists: go on, 304, or 412. */
export type PreconditionVerdict = 'proceed' | 'not_modified' | 'failed';

/** The If-Match and If-None-Match of one request, parsed once, and the one evaluation of both. */
export interface RequestPreconditions {
  /** GET and HEAD: If-Match fails → `failed` (412); then If-None-Match matches → `not_modified` (304). */
  forRead(version: number): PreconditionVerdict;
  /** PATCH and DELETE, run against the version read for update: false (412) when either fails. */
  readonly forChange: Precondition;
}

/**
 * Parses If-Match and If-None-Match (a malformed one is 400 invalid_header: a request is never
 * guessed into being unconditional) and evaluates them, against the tags of the request's API version
 * (`suffix`, see entityTag), in the order of RFC 9110 §13.2.2: If-Match
 * (strong comparison), then If-None-Match (weak comparison). Steps 2 and 4, If-Unmodified-Since and
 * If-Modified-Since, are skipped: the service sends no Last-Modified, so they have nothing to compare.
 */
export function parsePreconditions(headers: IncomingHttpHeaders, suffix = ''): RequestPreconditions {
  const ifMatch = listOf('If-Match', headers['if-match']);
  const ifNoneMatch = listOf('If-None-Match', headers['if-none-match']);
  const evaluate = (version: number, safe: boolean): PreconditionVerdict => {
    const tag = entityTag(version, suffix);
    if (ifMatch !== undefined && !matches(ifMatch, tag, 'strong')) return 'failed';
    if (ifNoneMatch !== undefined && matches(ifNoneMatch, tag, 'weak')) return safe ? 'not_modified' : 'failed';
    return 'proceed';
  };
  return {
    forRead: (version) => evaluate(version, true),
    forChange: (version) => evaluate(version, false) === 'proceed',
  };
}

import type { Precondition } from '../shared/changes.ts';
import { HttpError } from './errors.ts';

/** The strong entity tag of a resource at `version` (RFC 9110 §8.8.3): `"3"`. */
export function entityTag(version: number): string {
  return `"${version}"`;
}

interface EntityTag {
  weak: boolean;
  opaque: string;
}

// One list member and the separator after it: `*`, or `W/"…"` / `"…"` with etagc characters
// (%x21 / %x23-7E / obs-text; a comma may stand inside the quotes), or an empty element, which
// RFC 9110 §5.6.1 lets a list have.
const MEMBER = /[ \t]*(?:(\*)|(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?[ \t]*(?:,|$)/y;

// `*` (any current representation), or the list of tags; null when the field is malformed.
function parseList(header: string): '*' | EntityTag[] | null {
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

function fieldOf(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header.join(', ') : header;
}

const ANY_VERSION: Precondition = () => true;

/**
 * The precondition of `If-Match` (RFC 9110 §13.1.1): absent or `*`, any version; otherwise some
 * listed tag must equal the current one by strong comparison (a weak tag never matches).
 * A malformed field is 400 invalid_header: a write is never guessed into being unconditional.
 */
export function ifMatch(header: string | string[] | undefined): Precondition {
  const field = fieldOf(header);
  if (field === undefined) return ANY_VERSION;
  const list = parseList(field);
  if (list === null) throw malformed('If-Match');
  if (list === '*') return ANY_VERSION;
  const strong = list.filter((tag) => !tag.weak).map((tag) => tag.opaque);
  return (version) => strong.includes(entityTag(version));
}

/**
 * Whether `If-None-Match` matches the current version by weak comparison (RFC 9110 §13.1.2), so a
 * GET or HEAD is answered 304. Absent: false. Malformed: 400 invalid_header.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, version: number): boolean {
  const field = fieldOf(header);
  if (field === undefined) return false;
  const list = parseList(field);
  if (list === null) throw malformed('If-None-Match');
  return list === '*' || list.some((tag) => tag.opaque === entityTag(version));
}

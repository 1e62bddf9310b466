import { escapeHtml } from './html.ts';

/** The API versions the page lists, and the one whose document it shows. */
export interface PageVersions {
  /** The version shown: its operations, its shapes, the one its forms send. */
  readonly shown: string;
  /** Every version served, newest first, with what it changed and its sunset (RFC 3339) or null. */
  readonly served: readonly { readonly id: string; readonly summary: string; readonly sunset: string | null }[];
}

/** Where the page of version `id` is: this page, showing that version's operations. */
export function pageOf(id: string): string {
  return `/api/docs?version=${encodeURIComponent(id)}`;
}

/** Where the document of version `id` is. */
export function documentOf(id: string): string {
  return `/api/openapi.json?version=${encodeURIComponent(id)}`;
}

/**
 * The section `#versions` (where a version's `Link: </api/docs#versions>; rel="deprecation"` points):
 * every version served, newest first, with what it changed and its sunset, each a link to its own
 * operations; the one shown is marked.
 */
export function versionsSection(versions: PageVersions): string {
  const rows = versions.served.map(({ id, summary, sunset }) => {
    const shown = id === versions.shown;
    const name = shown ? `<strong><code>${escapeHtml(id)}</code></strong> <small>shown</small>` : `<a href="${escapeHtml(pageOf(id))}"><code>${escapeHtml(id)}</code></a>`;
    const going = sunset === null ? '' : `<span class="required">sunset ${escapeHtml(sunset)}</span>`;
    return `<tr${shown ? ' class="shown"' : ''}><td>${name}</td><td>${escapeHtml(summary)}</td><td>${going}</td></tr>`;
  });
  return (
    '<h2 class="tag" id="versions">Versions</h2>' +
    `<p>The API version shown here is <code>${escapeHtml(versions.shown)}</code>: every form below sends <code>Api-Version: ${escapeHtml(versions.shown)}</code>, ` +
    'and every shape is the one served in it. Each version served, newest first; follow one to see its operations.</p>' +
    '<div class="table"><table><thead><tr><th>version</th><th>what it changed</th><th>sunset</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></div>`
  );
}

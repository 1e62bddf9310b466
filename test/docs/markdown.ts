// Just enough Markdown to check links: headings and their anchors as GitHub makes them, and the links
// of the prose (never those quoted in code).

/** The text with fenced code blocks and HTML comments blanked out, line numbers kept. */
export function withoutCodeBlocks(text: string): string {
  let fence: string | undefined;
  return text
    .replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => {
      const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && opener !== undefined) fence = opener[0];
      else if (fence !== undefined && opener?.[0] === fence) fence = undefined;
      else if (fence === undefined) return line;
      return '';
    })
    .join('\n');
}

// Code spans may wrap a line but never a paragraph, so they are removed paragraph by paragraph.
function withoutCodeSpans(prose: string): string {
  return prose
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/`[^`]*`/g, ''))
    .join('\n\n');
}

/** GitHub's anchor of a heading: the rendered text, lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of a page, level and text, in order (fenced code excluded: `# HELP` is not a heading). */
export function headings(text: string): { level: number; text: string }[] {
  return [...withoutCodeBlocks(text).matchAll(/^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)].map((m) => ({ level: (m[1] as string).length, text: m[2] as string }));
}

/** Every anchor a page offers: its headings' slugs (repeats get -1, -2, …) and explicit `id`/`name` attributes. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: heading } of headings(text)) {
    const slug = githubSlug(heading);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${times}`);
  }
  for (const m of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1] as string);
  return anchors;
}

/** The targets of the prose's links and images `[text](target)` and reference definitions `[id]: target`. */
export function linkTargets(text: string): string[] {
  const prose = withoutCodeSpans(withoutCodeBlocks(text));
  const inline = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const references = [...prose.matchAll(/^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string);
  return [...inline, ...references];
}

/** A link to another site or scheme (`https:`, `mailto:`, `//host`), as opposed to a path in the repository. */
export const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

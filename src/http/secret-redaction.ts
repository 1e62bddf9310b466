// A regular expression's own characters, written so they match themselves.
function literal(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

// Every way a URL can spell `secret` (visible ASCII, as SVC_API_TOKEN is): each character as it is,
// or percent-encoded in either letter case, in any mix.
function spellingsOf(secret: string): RegExp {
  const chars = [...secret].map((char) => {
    const [high = '', low = ''] = char.charCodeAt(0).toString(16).padStart(2, '0');
    return `(?:${literal(char)}|%${high}[${low.toLowerCase()}${low.toUpperCase()}])`;
  });
  return new RegExp(chars.join(''), 'g');
}

/**
 * `text` with every spelling of one of `secrets` replaced by `[redacted]`: for SVC_API_TOKEN, which has
 * no shape of its own for redactCredentials to find, in the URLs the access log writes.
 */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const patterns = secrets.filter((secret) => secret !== '').map(spellingsOf);
  if (patterns.length === 0) return (text) => text;
  return (text) => patterns.reduce((redacted, pattern) => redacted.replace(pattern, '[redacted]'), text);
}

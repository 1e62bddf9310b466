import { isProviderUrl } from './settings.ts';

/** Why the issuer's documents could not be had: for the log, never for a caller. */
export class KeyFetchError extends Error {
  override name = 'KeyFetchError';
}

/** The largest discovery document or JWKS read; real ones are a few kilobytes. */
export const MAX_DOCUMENT_BYTES = 256 * 1024;

function because(error: unknown): string {
  const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error) : null;
  return cause === null ? String(error) : cause.message;
}

async function readLimited(body: ReadableStream<Uint8Array>, url: string): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks).toString('utf8');
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new KeyFetchError(`GET ${url}: the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(value);
  }
}

/**
 * GETs a JSON document of the identity provider with the built-in fetch, ended by `signal` (its
 * deadline). Redirects are refused, not followed: every hop would have to be https, and the URLs to
 * configure are the final ones anyway.
 */
export async function fetchJson(url: string, signal: AbortSignal): Promise<unknown> {
  if (!URL.canParse(url) || !isProviderUrl(new URL(url))) throw new KeyFetchError(`${url} is not an https:// URL (http:// only for a loopback host)`);
  let text: string;
  try {
    const response = await fetch(url, { signal, redirect: 'error', headers: { accept: 'application/json' } });
    if (response.status !== 200 || response.body === null) {
      await response.body?.cancel();
      throw new KeyFetchError(`GET ${url} answered ${response.status}`);
    }
    text = await readLimited(response.body, url);
  } catch (error) {
    throw error instanceof KeyFetchError ? error : new KeyFetchError(`GET ${url} failed: ${because(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new KeyFetchError(`GET ${url}: the answer is not JSON`);
  }
}

import { reasonPhrase } from '../../src/http/errors.ts';
import { SECURITY_HEADERS } from '../../src/http/security-headers.ts';
import type { RawResponse } from './raw-http.ts';

// What every answer must look like whatever was asked (docs/api.md, Errors and Headers); each check
// returns a sentence saying what is wrong, or null.

/** Words that would show an internal detail leaking into an error. */
const LEAKS = /\bat \S+ \(|node:internal|sqlite|SELECT |INSERT |\/work\/|\.ts:\d+|Error:/i;

function headerProblem(response: RawResponse): string | null {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (response.headers[name] !== value) return `header ${name} is ${JSON.stringify(response.headers[name])}`;
  }
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(response.headers['x-request-id'] ?? '')) return 'no usable X-Request-Id';
  if ('x-powered-by' in response.headers || 'server' in response.headers) return 'X-Powered-By or Server is sent';
  return null;
}

function problemDocumentProblem(response: RawResponse, bodyless: boolean): string | null {
  if (response.headers['content-type'] !== 'application/problem+json') {
    return `error content type ${JSON.stringify(response.headers['content-type'])}`;
  }
  if (bodyless) return null;
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'error body is not JSON';
  }
  if (problem['status'] !== response.status) return `problem status ${String(problem['status'])}`;
  if (problem['type'] !== 'about:blank' || problem['title'] !== reasonPhrase(response.status)) return 'problem type or title';
  if (typeof problem['code'] !== 'string' || typeof problem['detail'] !== 'string') return 'problem code or detail missing';
  if (problem['requestId'] !== response.headers['x-request-id']) return 'problem requestId differs from X-Request-Id';
  if (LEAKS.test(String(problem['detail']))) return `problem detail leaks: ${String(problem['detail'])}`;
  return null;
}

/** What is wrong with an answer to anything at all, or null: no 5xx but 503, errors as problem documents, every header. */
export function answerProblem(response: RawResponse, bodyless: boolean): string | null {
  if (response.status >= 500 && response.status !== 503) return `status ${response.status}`;
  const headers = headerProblem(response);
  if (headers !== null) return headers;
  if (response.status >= 400) return problemDocumentProblem(response, bodyless);
  // 204 and 304 have no body, so no content type either (RFC 9110 §8.6, §15.3.5): `OPTIONS *` is one.
  if (response.status === 204 || response.status === 304) return response.body.length === 0 ? null : `a ${response.status} with a body`;
  if (!bodyless && response.headers['content-type'] !== 'application/json; charset=utf-8') {
    return `success content type ${JSON.stringify(response.headers['content-type'])}`;
  }
  return null;
}

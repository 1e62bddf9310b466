import assert from 'node:assert/strict';

/** RFC 3339 UTC with milliseconds, as Date#toISOString writes it. */
export const RFC3339_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Ids that are not positive safe integers; each must get 404 on `/{id}`. */
export const NON_IDS = ['0', '-1', '1.5', 'abc', '9007199254740992', '%31', '1e3', '01', '9'.repeat(400), '1%20', '%20'];

/** Asserts a problem document's fixed members and returns it. */
export async function assertProblem(response: Response, status: number, code: string, instance: string): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  const problem = (await response.json()) as Record<string, unknown>;
  assert.equal(problem['type'], 'about:blank');
  assert.equal(problem['status'], status);
  assert.equal(problem['code'], code);
  assert.equal(problem['instance'], instance);
  assert.equal(problem['requestId'], response.headers.get('x-request-id'));
  assert.equal(typeof problem['title'], 'string');
  assert.equal(typeof problem['detail'], 'string');
  return problem;
}

/** Asserts `createdAt` is RFC 3339 UTC with ms and within the last minute. */
export function assertRecentTimestamp(value: unknown): void {
  assert.equal(typeof value, 'string');
  assert.match(value as string, RFC3339_UTC_MS);
  const age = Date.now() - Date.parse(value as string);
  assert.ok(age >= -1_000 && age < 60_000, `createdAt ${String(value)} is not recent`);
}

/** Resolves once `condition` holds, checking every `intervalMs`; rejects with `what` after `timeoutMs`. */
export async function eventually(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

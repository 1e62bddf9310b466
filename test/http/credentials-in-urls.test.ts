import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, guessedKey, type KeysServer, startKeysServer } from '../support/keys.ts';

// docs/security.md: keys and tokens travel in Authorization only; one a client puts in the URL anyway
// is still a credential, and the access log writes the URL with it replaced by [redacted].
let server: KeysServer;
before(async () => {
  server = await startKeysServer();
});
after(() => server.stop());

const fakeJwt = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"sub":"u1"}').toString('base64url')}.c2lnbmF0dXJl`;

function loggedUrls(): string[] {
  server.app.logger.flush();
  return server.logs.flatMap((line) => {
    const url = (line['req'] as { url?: unknown } | undefined)?.url;
    return typeof url === 'string' ? [url] : [];
  });
}

test('a key or a token in the query string is never written to the access log', async () => {
  const stray = guessedKey();
  const answers = await Promise.all([
    fetch(`${server.url}/api/products?api_key=${server.admin.key}&limit=1`, { headers: bearer(server.admin.key) }),
    fetch(`${server.url}/api/products?access_token=${fakeJwt}`),
    fetch(`${server.url}/api/nowhere/${stray}`),
  ]);
  assert.deepEqual(answers.map((answer) => answer.status), [200, 401, 401]);
  const urls = loggedUrls();
  const text = JSON.stringify(server.logs);
  for (const secret of [server.admin.key, fakeJwt, stray]) assert.ok(!text.includes(secret), `a log line shows ${secret.slice(0, 12)}…`);
  assert.ok(urls.includes('/api/products?api_key=[redacted]&limit=1'), urls.join('\n'));
  assert.ok(urls.includes('/api/products?access_token=[redacted]'), urls.join('\n'));
  assert.ok(urls.includes('/api/nowhere/[redacted]'), urls.join('\n'));
});

test('URLs without a credential are logged as they came', async () => {
  await fetch(`${server.url}/api/products?limit=2&cursor=abc_svc_eyJ`, { headers: bearer(server.admin.key) });
  assert.ok(loggedUrls().includes('/api/products?limit=2&cursor=abc_svc_eyJ'));
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bearer, guessedKey, type KeysServer, startKeysServer } from '../support/keys.ts';
import { rawRequest } from '../support/raw-http.ts';
import { startTestServer } from '../support/server.ts';

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

test('SVC_API_TOKEN in a URL, however it is spelled, is never written to the access log', async () => {
  // Characters a URL may carry as they are or percent-encoded, in either letter case.
  const token = 'Api-T0ken/with+odd%chars!';
  const tokenServer = await startTestServer({ SVC_API_TOKEN: token });
  const everyCharEncoded = [...token].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('');
  const targets = [
    `/api/products?token=${token}`,
    `/api/products?token=${encodeURIComponent(token)}&limit=1`,
    `/api/products?token=${everyCharEncoded}`,
    `/api/products?token=${token.slice(0, 4)}${encodeURIComponent(token.slice(4)).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())}`,
    `/api/nowhere/${encodeURIComponent(token)}`,
  ];
  try {
    for (const target of targets) {
      await rawRequest(tokenServer.url, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n`, ['\r\n']);
    }
    tokenServer.app.logger.flush();
    const urls = tokenServer.logs.flatMap((line) => ((line['req'] as { url?: unknown } | undefined)?.url as string | undefined) ?? []);
    assert.deepEqual(urls, [
      '/api/products?token=[redacted]',
      '/api/products?token=[redacted]&limit=1',
      '/api/products?token=[redacted]',
      '/api/products?token=[redacted]',
      '/api/nowhere/[redacted]',
    ]);
    const text = JSON.stringify(tokenServer.logs);
    for (const spelling of [token, encodeURIComponent(token), everyCharEncoded, 'with+odd']) assert.ok(!text.includes(spelling), spelling);
  } finally {
    await tokenServer.stop();
  }
});

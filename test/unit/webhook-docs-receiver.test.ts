// The receiver docs/webhooks.md shows, run as written (its port aside) against real attempts: the page's
// few lines verify what the service sends, and refuse what another secret signed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sendWebhook, type AttemptResult } from '../../src/webhooks/send.ts';
import { newWebhookSecret, signatureHeader } from '../../src/webhooks/signature.ts';

const PAGE = new URL('../../docs/webhooks.md', import.meta.url);

/** The page's receiver: the `js` block of the Signatures section. */
function documentedReceiver(): string {
  const page = readFileSync(PAGE, 'utf8');
  const section = page.slice(page.indexOf('\n## Signatures\n'), page.indexOf('\n## Retries\n'));
  const block = /^```js\n([\s\S]*?)^```$/m.exec(section);
  assert.ok(block?.[1] !== undefined, 'docs/webhooks.md shows a receiver in a js block under Signatures');
  return block[1];
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function attempt(port: number, secrets: string[], body: string): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = { 'content-type': 'application/json', 'webhook-id': '3', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(secrets, '3', timestamp, body) };
  return sendWebhook({ url: new URL(`http://127.0.0.1:${port}/`), headers, body, timeoutMs: 5_000, allowPrivate: true });
}

test('the receiver of docs/webhooks.md verifies a delivery, with either secret during a rotation, and refuses another', { timeout: 60_000 }, async () => {
  const source = documentedReceiver()
    .replace("from 'standardwebhooks'", `from ${JSON.stringify(import.meta.resolve('standardwebhooks'))}`)
    .replace('.listen(8080)', ".listen(Number(process.env.PORT), '127.0.0.1')");
  assert.match(source, /process\.env\.PORT/, 'the page listens with .listen(8080)');
  const folder = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
  const file = join(folder, 'receiver.mjs');
  writeFileSync(file, source);
  const secret = newWebhookSecret();
  const port = await freePort();
  const child = spawn(process.execPath, [file], { env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  try {
    const body = '{"id":"3","type":"product.created","data":{"name":"Th\u00e9"}}';
    let first = await attempt(port, [secret], body);
    for (const started = Date.now(); first.reason === 'refused' && Date.now() - started < 30_000; first = await attempt(port, [secret], body)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(first, { outcome: 'delivered', status: 204, retryAfterMs: null, reason: '2xx' });
    assert.equal((await attempt(port, [newWebhookSecret(), secret], body)).status, 204, 'signed with the new and the kept secret');
    assert.equal((await attempt(port, [newWebhookSecret()], body)).status, 400, 'signed with another secret');
    assert.match(printed, /^3 product\.created$/m);
  } finally {
    child.kill();
    rmSync(folder, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { openStream } from '../support/event-stream.ts';
import { postJson, startTestServer, type TestServer } from '../support/server.ts';

// The live stream through a reverse proxy as operators run one: Debian's nginx with a plain
// proxy_pass and nothing tuned for streams (HTTP/1.0 upstream, proxy_buffering on, 60 s read
// timeout). The service's X-Accel-Buffering: no turns nginx's buffering off for the stream, and its
// comments keep the connection inside the read timeout (docs/events.md, Proxies).
const NGINX = '/usr/sbin/nginx';
const CONTRACT_MS = 1_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

// A config the test writes: everything nginx keeps (pid, logs, temporary files) in its own folder.
function plainProxyConfig(dir: string, port: number, upstream: string): string {
  const temp = (name: string): string => `${name}_temp_path ${join(dir, name)};`;
  return `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass ${upstream}; }
  }
}
`;
}

describe('the live stream through nginx', { skip: existsSync(NGINX) ? false : `${NGINX} is not installed (apt-get install nginx)` }, () => {
  let server: TestServer;
  let nginx: ChildProcess;
  let dir: string;
  let proxied: string;
  before(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'svc-nginx-'));
    for (const name of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, name));
    const port = await freePort();
    writeFileSync(join(dir, 'nginx.conf'), plainProxyConfig(dir, port, server.url));
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
    proxied = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    while ((await fetch(`${proxied}/api/ping`).then((r) => r.status, () => 0)) !== 200) {
      if (Date.now() > deadline) throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
      await sleep(50);
    }
  });
  after(async () => {
    nginx?.kill('SIGTERM');
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('each event arrives within 1 s of its 201, through a plain proxy_pass', { timeout: 60_000 }, async () => {
    const stream = await openStream(`${proxied}/api/events`);
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
      await stream.waitForComments(1, 5_000);
      for (let i = 1; i <= 5; i++) {
        const response = await postJson(`${proxied}/api/products`, { name: `through nginx ${i}`, priceInCents: 1 });
        assert.equal(response.status, 201);
        const acknowledged = Date.now();
        await stream.waitFor(i, 5_000);
        assert.ok(Date.now() - acknowledged <= CONTRACT_MS, `event ${i} arrived ${Date.now() - acknowledged} ms after its 201`);
        await sleep(100);
      }
      assert.deepEqual(
        stream.messages.map((message) => (JSON.parse(message.data) as { data: { name: string } }).data.name),
        [1, 2, 3, 4, 5].map((i) => `through nginx ${i}`),
      );
    } finally {
      stream.close();
    }
  });

  test('a quiet stream keeps its connection through the proxy with its comments', { timeout: 60_000 }, async () => {
    const stream = await openStream(`${proxied}/api/events`);
    try {
      await stream.waitForComments(1, 5_000);
      await stream.nextComment(16_000);
    } finally {
      stream.close();
    }
  });
});

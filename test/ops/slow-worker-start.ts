// Preloaded into a bin/serve.js child with `--import` in NODE_OPTIONS, so its workers get it too: a worker
// of cluster id TEST_SLOW_WORKER_FROM or above (1 by default; 0: a process that is no worker too) pauses 500 ms at the stage
// TEST_SLOW_WORKER_AT names, after a stdout line saying so (`test: worker paused`, with its pid), so
// that a test can signal it exactly then. `boot`: before bin/serve.js runs, when no handler of the
// service's is installed (Node itself starting); `sources`: as the sources load, once bin/serve.js
// holds the stop signals. The pause blocks the thread, as loading and compiling do.
import cluster from 'node:cluster';
import { writeSync } from 'node:fs';
import { registerHooks } from 'node:module';

const from = Number(process.env['TEST_SLOW_WORKER_FROM'] ?? '1');
const stage = process.env['TEST_SLOW_WORKER_AT'];

function pause(): void {
  writeSync(1, `${JSON.stringify({ msg: 'test: worker paused', stage, pid: process.pid })}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
}

if (cluster.isWorker ? (cluster.worker?.id ?? 0) >= from : from === 0) {
  if (stage === 'boot') pause();
  if (stage === 'sources') {
    registerHooks({
      load(url, context, nextLoad) {
        if (url.endsWith('/src/cli/serve.ts')) pause();
        return nextLoad(url, context);
      },
    });
  }
}

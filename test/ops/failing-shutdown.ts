// Preloaded into a bin/serve.js child with `--import`: in the first worker only, once SIGTERM arrives,
// closing the database fails, so that worker's own shutdown fails (as with a disk gone away) and it
// exits 1 by itself. Start-up, which opens and closes the database too, is left alone.
import cluster from 'node:cluster';
import { DatabaseSync } from 'node:sqlite';

if (cluster.isWorker && cluster.worker?.id === 1) {
  process.once('SIGTERM', () => {
    DatabaseSync.prototype.close = function failingClose(): void {
      throw new Error('the disk went away');
    };
  });
}

// Run by postgres.test.ts as a test process that dies: it starts a cluster (fsync on, as durability
// tests start theirs), prints what the test needs to find it, then waits to be killed.
import { startPostgres } from './postgres.ts';

const cluster = await startPostgres({ fsync: true });
process.stdout.write(`${JSON.stringify({ url: cluster.url, dir: cluster.dir, pids: cluster.processIds() })}\n`);
setInterval(() => undefined, 60_000);

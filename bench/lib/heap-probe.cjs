// Preloaded into a server by bench/streams.js (NODE_OPTIONS=--require): on SIGUSR2 it collects all
// garbage, twice, and prints the heap's size on stderr. The resident size alone swings by the young
// generation's fill (up to 16 MiB, 16 KiB a stream of 1,000), so memory per stream is read after a
// full collection. The bench's own probe: the service never loads it.
const v8 = require('node:v8');
const vm = require('node:vm');

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');
process.on('SIGUSR2', () => {
  collect();
  collect();
  const { heapUsed, external, rss } = process.memoryUsage();
  process.stderr.write(`heap-probe ${JSON.stringify({ heapUsed, external, rss })}\n`);
});

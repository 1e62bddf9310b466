// Preloaded into a bin/serve.js child with `--import`: every listen() begins 300 ms late, so the
// child is reliably still starting when a test signals it (a slow start, as on a loaded machine).
import { Server } from 'node:net';

const listen = Server.prototype.listen;
Server.prototype.listen = function slowListen(this: Server, ...args: unknown[]): Server {
  setTimeout(() => listen.apply(this, args as Parameters<typeof listen>), 300);
  return this;
} as typeof listen;

// The ceiling: bare node:http answering a constant JSON body with the same headers as the service.
import { createServer } from 'node:http';
import { HEADERS, JSON_TYPE } from './headers.js';

const body = JSON.stringify({ status: 1, checks: { database: 1, schema: 1 } });
const headers = [...HEADERS, 'content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body))];

const server = createServer((req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

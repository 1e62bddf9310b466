// The create floor: the least a durable create with its event costs on node:http + node:sqlite. It reads
// the body, parses it, and in a group commit per event-loop turn (as ours) inserts the product and its
// event with ours' statements (the SQL of the current schema, as in peers/fastify.js), COMMITs with
// synchronous=FULL (DURABILITY=normal: NORMAL), then answers 201 with the product, a Location, an ETag
// and the service's headers. None of the rules: no routing, media types, body limit, validation beyond
// the types, versions, savepoints or idempotency. Fastify ÷ floor is the most a server making this
// write reaches against Fastify here; ours ÷ floor is what the service's rules cost.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { HEADERS, JSON_TYPE } from './headers.js';

const db = new DatabaseSync(process.env.DB_PATH);
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${process.env.DURABILITY === 'normal' ? 'NORMAL' : 'FULL'}; PRAGMA foreign_keys = ON`);
// The statements ours runs for a create: the row, then its event copied from it by SQLite.
const insert = db.prepare("INSERT INTO products (name, price_in_cents, price_currency, status, created_at, updated_at) VALUES (?, ?, 'EUR', 1, ?, ?)");
const COLUMNS = 'id, name, price_in_cents, price_currency, status, created_at, updated_at, version';
const event = db.prepare(`INSERT INTO events (type, created_at, data) SELECT 1, updated_at, json_array(${COLUMNS}) FROM products WHERE id = ?`);

let queue = [];
function commit() {
  const batch = queue;
  queue = [];
  db.exec('BEGIN IMMEDIATE');
  const products = batch.map(({ input }) => {
    const at = new Date().toISOString();
    const id = Number(insert.run(input.name, input.priceInCents, at, at).lastInsertRowid);
    event.run(id);
    return { id, name: input.name, priceInCents: input.priceInCents, status: 1, createdAt: at, updatedAt: at };
  });
  db.exec('COMMIT');
  batch.forEach(({ res }, i) => {
    const body = JSON.stringify(products[i]);
    res.writeHead(201, [...HEADERS, 'content-type', JSON_TYPE, 'x-request-id', randomUUID(), 'location', `/api/products/${products[i].id}`, 'etag', '"1"', 'content-length', String(Buffer.byteLength(body))]);
    res.end(body);
  });
}

const server = createServer((req, res) => {
  // Any GET is the benchmark's readiness check: a 200 is all it reads.
  if (req.method === 'GET') return res.end();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let input;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      input = null;
    }
    if (typeof input?.name !== 'string' || !Number.isInteger(input.priceInCents)) {
      res.writeHead(422, ['content-type', JSON_TYPE]);
      return res.end('{}');
    }
    if (queue.push({ input, res }) === 1) setImmediate(commit);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

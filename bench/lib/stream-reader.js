// A reader process of bench/streams.js (forked, so reading the streams never slows the writer's
// clock). Each stream is a raw socket; of each message only the product's id in its `data:` line is
// kept, with when it came (milliseconds since the epoch, comparable across processes), in the order
// it came. The server writes whole messages at a time, so a chunk's framing never cuts a `data:` line.
// Messages: { open: { url, count } } → { opened: true }; { report: true } → { streams: [{ ids, at }] }.
import { connect } from 'node:net';

const PRODUCT_ID = /"data":\{"id":(\d+)/;
const now = () => performance.timeOrigin + performance.now();

function openStream(url) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const stream = { socket, ids: [], at: [] };
  let tail = '';
  socket.setEncoding('utf8');
  socket.on('error', (error) => console.error('stream socket:', error.message));
  socket.write('GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n');
  socket.on('data', (chunk) => {
    const at = now();
    const text = tail + chunk;
    // Whole lines only; the incomplete last one (with the newline before it) waits for the next chunk.
    const end = text.lastIndexOf('\n');
    tail = end < 0 ? text : text.slice(end);
    for (let from = text.indexOf('\ndata: '); from >= 0 && from < end; from = text.indexOf('\ndata: ', from + 1)) {
      const match = PRODUCT_ID.exec(text.slice(from, text.indexOf('\n', from + 1)));
      if (match === null) continue;
      stream.ids.push(Number(match[1]));
      stream.at.push(at);
    }
  });
  return stream;
}

const streams = [];
process.on('message', (message) => {
  if (message.open !== undefined) {
    for (let i = 0; i < message.open.count; i++) streams.push(openStream(message.open.url));
    process.send({ opened: true });
  } else if (message.report !== undefined) {
    for (const stream of streams) stream.socket.destroy();
    // Disconnected only once the (large) report has been handed over.
    process.send({ streams: streams.map(({ ids, at }) => ({ ids, at })) }, () => process.disconnect());
  }
});

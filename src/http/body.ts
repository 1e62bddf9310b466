import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

// A leading BOM is dropped (RFC 8259 §8.1 lets parsers ignore it); any other bad byte is an error.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * True for one of `types` (default `application/json`) with no parameter but an optional
 * `charset=utf-8`, in any letter case.
 */
export function isJsonContentType(header: string | undefined, types: readonly string[] = ['application/json']): boolean {
  if (header === undefined) return false;
  const [type = '', ...parameters] = header.split(';');
  if (!types.includes(type.trim().toLowerCase())) return false;
  return parameters.every((parameter) => {
    // RFC 9110 §5.6.6 allows empty parameters (`application/json;`).
    if (parameter.trim() === '') return true;
    const equals = parameter.indexOf('=');
    const name = parameter.slice(0, equals === -1 ? parameter.length : equals);
    const unquoted = parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1');
    return equals !== -1 && name.trim().toLowerCase() === 'charset' && unquoted.toLowerCase() === 'utf-8';
  });
}

/**
 * True when a `Content-Encoding` field applies no coding: absent, empty, or `identity` only. RFC 9110
 * §8.4: a list of codings, case-insensitive, in the order they were applied; empty members count for
 * nothing (§5.6.1), so `gzip, identity` is still gzip.
 */
export function isIdentityCoding(header: string | undefined): boolean {
  if (header === undefined) return true;
  return header.split(',').every((member) => {
    const coding = member.trim().toLowerCase();
    return coding === '' || coding === 'identity';
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError('payload_too_large', { detail: `The request body is larger than ${limit} bytes.` });
}

/** Reads the raw body, refusing it as soon as it is known to exceed `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    // The client hung up, or a timeout cut it off, mid-body: a client error, not an unexpected one.
    const onError = (): void => {
      cleanup();
      reject(new HttpError('bad_request', { detail: 'The request body ended before it was complete.' }));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Decodes strict UTF-8 and parses JSON; any failure is 400 invalid_json. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw new HttpError('invalid_json', { detail: 'The request body is empty.' });
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new HttpError('invalid_json', { detail: 'The request body is not valid UTF-8.' });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('invalid_json');
  }
}

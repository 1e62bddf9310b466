import type { Caller } from '../callers/caller.ts';
import { redactCredentials } from '../callers/shapes.ts';
import type { Logger } from '../log/logger.ts';

export interface RequestRecord {
  requestId: string;
  method: string;
  url: string;
  remoteAddress: string;
  statusCode: number;
  startedAt: number;
  /** Who called, when known (SVC_AUTH on): so every change can be traced to a caller. */
  caller: Caller | null;
}

// `"caller":{"kind":"key","id":"…"}`: the key's public id, or the token's `sub` and `client_id`; never a secret.
function callerJson(caller: Caller | null): string {
  if (caller === null) return '';
  const clientId = caller.clientId === undefined ? '' : `,"clientId":${JSON.stringify(caller.clientId)}`;
  return `,"caller":{"kind":"${caller.kind}","id":${JSON.stringify(caller.id)}${clientId}}`;
}

/** Writes the one pino-format line per request of docs/operations.md, Logs: level 30 below 500, 50 for 5xx. */
export function logRequest(logger: Logger, record: RequestRecord): void {
  const level = record.statusCode >= 500 ? 50 : 30;
  if (!logger.isEnabled(level)) return;
  const responseTime = Math.round((performance.now() - record.startedAt) * 1000) / 1000;
  // Built by hand: this runs once per request and JSON.stringify of a nested object costs more.
  const json =
    `"reqId":${JSON.stringify(record.requestId)},"req":{"method":${JSON.stringify(record.method)},` +
    // A key or token a client put in the URL is a credential all the same: never written to a log.
    `"url":${JSON.stringify(redactCredentials(record.url))},"remoteAddress":${JSON.stringify(record.remoteAddress)}},` +
    `"res":{"statusCode":${record.statusCode}},"responseTime":${responseTime}${callerJson(record.caller)}`;
  logger.writeRaw(level, 'request completed', json);
}

import type { Logger } from '../log/logger.ts';

export interface RequestRecord {
  requestId: string;
  method: string;
  url: string;
  remoteAddress: string;
  statusCode: number;
  startedAt: number;
}

/** Writes the one pino-format line per request of docs/operations.md, Logs: level 30 below 500, 50 for 5xx. */
export function logRequest(logger: Logger, record: RequestRecord): void {
  const level = record.statusCode >= 500 ? 50 : 30;
  if (!logger.isEnabled(level)) return;
  const responseTime = Math.round((performance.now() - record.startedAt) * 1000) / 1000;
  // Built by hand: this runs once per request and JSON.stringify of a nested object costs more.
  const json =
    `"reqId":${JSON.stringify(record.requestId)},"req":{"method":${JSON.stringify(record.method)},` +
    `"url":${JSON.stringify(record.url)},"remoteAddress":${JSON.stringify(record.remoteAddress)}},` +
    `"res":{"statusCode":${record.statusCode}},"responseTime":${responseTime}`;
  logger.writeRaw(level, 'request completed', json);
}

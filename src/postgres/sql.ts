/**
 * A timestamptz column as the text of an RFC 3339 UTC instant with milliseconds, formatted by the
 * server: the same text SQLite stores and Date#toISOString writes, and no date parsing in the client.
 */
export function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A bigint column read back as a number (ids stay far below 2^53). */
export function asNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

// RFC 3339 §5.6 `date-time`, as JSON Schema's `format: date-time` reads it: a full date, `T`, a
// full time with optional fraction, and `Z` or a numeric offset. Either letter may be lower case.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/**
 * The instant an RFC 3339 date-time names, in epoch milliseconds (a fraction beyond milliseconds is
 * cut off), or null when `text` is not one: a bad shape, or a field out of its range (month 13,
 * February 30, hour 24). A leap second (`:60`) is refused: no clock here can name it.
 */
export function parseDateTime(text: string): number | null {
  const match = DATE_TIME.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = Number(match[9] ?? 0);
  const offsetMinutes = Number(match[10] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC, which would read years 0..99 as 1900..1999.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, Number((match[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const sign = match[8] === '-' ? -1 : 1;
  return at.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/**
 * The API's timestamps read the same on every worker. Spec 01 "Dates": "audit timestamps (`createdAt`,
 * `updatedAt`) are ISO 8601 UTC values", so one written without a zone (`2026-11-01T10:00:00.123`) is UTC too:
 * `Date.parse` would read it in the process's own zone, which differs from worker to worker. No Node built-ins here:
 * workflow code imports it.
 */

/** ISO 8601 date and time of day, with or without a zone: `2026-11-01T00:00:00`, `2026-11-01 23:59`, `...+09:00`. */
const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|\s?(?:UTC|GMT)|[+-]\d{2}(?::?\d{2})?)?$/i;
/** ISO 8601's basic format, without separators: `20261101`, `20261101T003000Z`, `20261101T0030+0100`. */
const ISO_BASIC =
  /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?:\d{2})?)?)?$/i;
/** A zone named in another form `Date.parse` reads (`Sun, 01 Nov 2026 00:00:00 GMT`, `... 00:00 +0100`). */
const NAMED_ZONE = /\b(?:GMT|UTC)\b|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})\b/i;

/** `+09` and `+0900` as `+09:00`, the offset form `Date.parse` is specified to read. */
function isoOffset(zone: string): string {
  const named = zone.trim().toUpperCase();
  if (named === 'Z' || named === 'UTC' || named === 'GMT') return 'Z';
  const digits = zone.slice(1).replace(':', '').padEnd(4, '0');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2)}`;
}

export interface IsoDateTime {
  /** The `YYYY-MM-DD` as written (not checked to be a real day). */
  date: string;
  /** Unix ms; without a zone, read as UTC. NaN when `Date.parse` cannot read it. */
  ms: number;
  /** Whether the text names its zone (`Z`, `UTC`, `GMT` or an offset). */
  zoned: boolean;
}

/** An ISO 8601 date and time (`T` or a space between them), or null when the text is not in that form. */
export function readIsoDateTime(text: string): IsoDateTime | null {
  const iso = ISO_DATE_TIME.exec(text.trim());
  if (!iso) return null;
  const [, date = '', time = '', zone] = iso;
  return {
    date,
    ms: Date.parse(`${date}T${time}${zone ? isoOffset(zone) : 'Z'}`),
    zoned: zone !== undefined,
  };
}

/**
 * ISO 8601's basic format written in its extended one (`20261101T003000+0100` as `2026-11-01T00:30:00+0100`, the
 * form `readIsoDateTime` reads); any other text as it is.
 */
export function extendedIso(text: string): string {
  const basic = ISO_BASIC.exec(text);
  if (!basic) return text;
  const [, year, month, day, hour, minute, second, fraction, zone = ''] = basic;
  const date = `${year}-${month}-${day}`;
  if (hour === undefined) return date;
  const seconds = second === undefined ? '' : `:${second}${fraction === undefined ? '' : `.${fraction}`}`;
  return `${date}T${hour}:${minute}${seconds}${zone}`;
}

/** True when a timestamp not in ISO form names its zone, so `Date.parse` reads it the same everywhere. */
export function namesItsZone(text: string): boolean {
  return NAMED_ZONE.test(text);
}

/**
 * Unix ms of a timestamp, one without a zone read as UTC; a bare `YYYY-MM-DD` is its UTC midnight. Another form is
 * read only when it names its zone. NaN when it cannot be read.
 */
export function utcTimestampMs(text: string): number {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return Date.parse(`${trimmed}T00:00:00Z`);
  const iso = readIsoDateTime(trimmed);
  if (iso) return iso.ms;
  return namesItsZone(trimmed) ? Date.parse(trimmed) : Number.NaN;
}

import { fail, ok, type Parsed } from './result';

/** How day-first and month-first exports write dates; ISO `YYYY-MM-DD` is read whatever the format. */
export type DateFormat = 'iso' | 'dmy' | 'mdy';

// Excel's day 1 is 1900-01-01, but it counts a 1900-02-29 that never was (serial 60); serial 61 is 1900-03-01.
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
const MAX_EXCEL_SERIAL = 2_958_465; // 9999-12-31

function calendarDate(year: number, month: number, day: number): Parsed<string> {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (
    year < 1000 ||
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return fail(
      `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} is not a real calendar date`,
    );
  }
  return ok(
    `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
  );
}

export function fromExcelSerial(serial: number): Parsed<string> {
  if (!Number.isFinite(serial) || serial < 1 || serial > MAX_EXCEL_SERIAL) {
    return fail(`${serial} is not an Excel date serial number (1 to ${MAX_EXCEL_SERIAL})`);
  }
  const whole = Math.floor(serial);
  if (whole === 60) return fail('Excel serial 60 is 1900-02-29, a day that does not exist');
  const days = whole < 60 ? whole + 1 : whole;
  const date = new Date(EXCEL_EPOCH_MS + days * DAY_MS);
  return ok(date.toISOString().slice(0, 10));
}

const ISO_DATE = /^(\d{4})[-/.](\d{2})[-/.](\d{2})$/;
/** A time of day as exports write it: `09:55`, `09:55:16`, `09:55:16.123`, `9:55 AM`. */
const TIME = String.raw`\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?[AaPp][Mm])?`;
/** A zone: `Z`, `+02:00`, `+0200`, `+02`, ` -0400` (Shopify), ` UTC`, ` GMT`. */
const ZONE = String.raw`(?:\s?(?:Z|[+-]\d{2}(?::?\d{2})?)|\s(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?)?`;
// A date-time keeps the calendar date it was written with: converting the offset to UTC could move the day.
const ISO_DATE_TIME = new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})(?:T|\s+)${TIME}${ZONE}$`);
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;
const COMPACT_DATE_TIME = /^(\d{4})(\d{2})(\d{2})[T ]?\d{6}$/;
const SERIAL_TEXT = /^\d{1,7}(\.\d+)?$/;
const SEPARATED_DATE = new RegExp(
  String.raw`^(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?:,?\s+${TIME}${ZONE})?$`,
);

/** What a date cell may hold, for the message of a refused one. */
export function acceptedDateForms(format: DateFormat): string {
  const separated =
    format === 'dmy'
      ? 'DD/MM/YYYY (also with . or -)'
      : format === 'mdy'
        ? 'MM/DD/YYYY (also with . or -)'
        : undefined;
  return [
    'YYYY-MM-DD',
    'a date-time such as 2025-05-11T09:55:16Z, 2025-05-11 09:55:16 -0400 or 2025-05-11T09:55+02:00 (the written date is kept)',
    'YYYYMMDD',
    'an Excel date serial',
    ...(separated ? [`${separated}, with or without a time`] : []),
  ].join(', ');
}

/**
 * Normalises a date cell to `YYYY-MM-DD`. Accepted whatever the profile's format: Excel serial numbers (number
 * cells, or 1-7 digit text), ISO dates and date-times with `T` or a space, with or without seconds and with `Z`,
 * `+hh:mm`, `+hhmm` or ` -hhmm` offsets (the written date is kept), compact `YYYYMMDD` (SAP). With `dmy`/`mdy`,
 * also `D/M/YYYY` / `M/D/YYYY` with `/`, `.` or `-` separators, with or without a time (Excel). Two-digit years are
 * refused (which century?).
 */
export function parseDate(value: string | number, format: DateFormat): Parsed<string> {
  if (typeof value === 'number') return fromExcelSerial(value);
  const text = value.trim();
  const iso =
    ISO_DATE.exec(text) ??
    ISO_DATE_TIME.exec(text) ??
    COMPACT_DATE.exec(text) ??
    COMPACT_DATE_TIME.exec(text);
  if (iso) return calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  if (SERIAL_TEXT.test(text)) return fromExcelSerial(Number(text));
  const refused = (reason: string): Parsed<string> =>
    fail(`${reason}; accepted: ${acceptedDateForms(format)} (the profile's dateFormat is '${format}')`);
  const separated = SEPARATED_DATE.exec(text);
  if (separated) {
    if (format === 'iso') {
      return refused(
        `'${text}' is day-first or month-first, which the profile's dateFormat 'iso' does not read (set it to dmy or mdy)`,
      );
    }
    const [first, second, year] = [Number(separated[1]), Number(separated[2]), separated[3] ?? ''];
    if (year.length !== 4)
      return refused(`'${text}' has a ${year.length}-digit year; write the year with 4 digits`);
    const [day, month] = format === 'dmy' ? [first, second] : [second, first];
    const parsed = calendarDate(Number(year), month, day);
    return parsed.ok
      ? parsed
      : refused(
          `'${text}' is not a real date when read as ${format === 'dmy' ? 'day/month/year' : 'month/day/year'}`,
        );
  }
  return refused(`'${text}' is not a date`);
}

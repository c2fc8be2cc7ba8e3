import { readFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import type { CertificateReportResult } from '../../activities/certificate-report';
import type { TestStack } from '../harness';
import { certificateReportRunner, startCertificateReportStack } from './certificate-report-stack';

/**
 * Spec 03, Certificate: "expirationDate | timestamp string". A timestamp expires at an instant, so the report
 * classifies it by its calendar date in one zone (the input's `timeZone`, which a schedule fills with its own zone),
 * the same zone that decides the as-of date. These certificates sit on the edges in Europe/Stockholm: local
 * midnight, one second before it, and both DST changes of 2026 (29 March, 25 October).
 */
describe('certificateReport classifies each expiry timestamp in the report’s time zone', () => {
  let stack: TestStack;
  const edges: Record<string, string> = {
    // 2026-11-02 00:00 in Stockholm (CET): expires on the 2nd there, the 1st in UTC.
    cert_tz_midnight: '2026-11-01T23:00:00.000Z',
    // 2026-11-01 23:59:59 in Stockholm: expired on the 2nd everywhere.
    cert_tz_before_midnight: '2026-11-01T22:59:59.000Z',
    // 2026-03-30 00:00 CEST (the first local midnight after clocks go forward on 29 March).
    cert_tz_spring: '2026-03-29T22:00:00.000Z',
    // 2026-03-29 23:59 CEST.
    cert_tz_spring_before: '2026-03-29T21:59:00.000Z',
    // 2026-10-25 00:00 CEST (clocks go back at 03:00 that night): the 25th in Stockholm, the 24th in UTC.
    cert_tz_autumn: '2026-10-24T22:00:00.000Z',
    // No zone: wall-clock times, on 2026-11-01 in whatever zone the report reads them.
    cert_tz_wall_midnight: '2026-11-01T00:00:00',
    cert_tz_wall_late: '2026-11-01 23:59:59',
    // Other timestamp strings: epoch milliseconds (2025-12-06T05:46:40Z), epoch seconds, a zone named in words.
    cert_ts_epoch_ms: '1765000000000',
    cert_ts_epoch_s: '1793491200',
    cert_ts_utc_word: '2026-11-01T00:00:00 UTC',
    // ISO 8601's basic format (no separators): a date, and a date and time with an offset (2026-10-31T23:30Z).
    cert_ts_iso_basic_date: '20261115',
    cert_ts_iso_basic_time: '20261101T003000+0100',
    // Day and month in an order nothing says: not read.
    cert_ts_unreadable: '01/11/2026',
    // Exactly midnight UTC: a date as entered.
    cert_tz_utc_midnight: '2026-11-01T00:00:00.000Z',
  };
  const report = certificateReportRunner(() => stack);
  const run = (input: { asOf: string; timeZone?: string }, name: string): Promise<CertificateReportResult> =>
    report(input, `tz-${name}`);
  const bucketOf = async (result: CertificateReportResult, id: string) => {
    const csv = readFileSync(result.files.csv, 'utf8');
    const row = csv.split('\r\n').find((line) => line.endsWith(`,${id}`));
    return row?.split(',').slice(0, 1)[0];
  };

  beforeAll(async () => {
    stack = await startCertificateReportStack('cert-report-tz-', (template) =>
      Object.entries(edges).map(([id, expirationDate]) => ({ ...template, id, expirationDate })),
    );
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('“expirationDate | timestamp string”: 2026-11-01T23:00Z is not yet expired on 2026-11-02 in Stockholm, where it expires that day', async () => {
    const result = await run({ asOf: '2026-11-02', timeZone: 'Europe/Stockholm' }, 'midnight');
    expect(result.timeZone).toBe('Europe/Stockholm');
    expect(await bucketOf(result, 'cert_tz_midnight')).toBe('Expiring in 0–30 days');
    expect(await bucketOf(result, 'cert_tz_before_midnight')).toBe('Expired');
    // The day after, it is expired.
    const next = await run({ asOf: '2026-11-03', timeZone: 'Europe/Stockholm' }, 'midnight-next');
    expect(await bucketOf(next, 'cert_tz_midnight')).toBe('Expired');
  });

  it('the same instants read in UTC fall on the UTC dates', async () => {
    const result = await run({ asOf: '2026-11-02', timeZone: 'UTC' }, 'utc');
    expect(await bucketOf(result, 'cert_tz_midnight')).toBe('Expired');
    const spring = await run({ asOf: '2026-03-30', timeZone: 'UTC' }, 'utc-spring');
    expect(await bucketOf(spring, 'cert_tz_spring')).toBe('Expired');
  });

  it('both DST changes: the first local midnight after the clocks move still belongs to its own day', async () => {
    const spring = await run({ asOf: '2026-03-30', timeZone: 'Europe/Stockholm' }, 'spring');
    expect(await bucketOf(spring, 'cert_tz_spring')).toBe('Expiring in 0–30 days');
    expect(await bucketOf(spring, 'cert_tz_spring_before')).toBe('Expired');
    const autumn = await run({ asOf: '2026-10-25', timeZone: 'Europe/Stockholm' }, 'autumn');
    expect(await bucketOf(autumn, 'cert_tz_autumn')).toBe('Expiring in 0–30 days');
    const autumnUtc = await run({ asOf: '2026-10-25', timeZone: 'UTC' }, 'autumn-utc');
    expect(await bucketOf(autumnUtc, 'cert_tz_autumn')).toBe('Expired');
  });

  // Spec 03, Certificate: `expirationDate` "timestamp string" (`issueDate` "ISO 8601 timestamp"). One without a zone
  // names a time of day, not an instant: the report reads it in its own `timeZone`, never in the worker's. A zone 11
  // hours behind UTC and one 14 ahead: a worker in any zone between them read midnight or 23:59:59 on another day.
  it('“expirationDate | timestamp string” without a zone: read in the report’s zone, the same on every worker', async () => {
    const rowOf = (result: CertificateReportResult, id: string) => {
      const row = readFileSync(result.files.csv, 'utf8')
        .split('\r\n')
        .find((line) => line.endsWith(`,${id}`));
      const [bucket, , days, expiresOn] = row?.split(',') ?? [];
      return { bucket, days, expiresOn };
    };
    for (const timeZone of ['Pacific/Pago_Pago', 'Pacific/Kiritimati']) {
      const result = await run({ asOf: '2026-11-01', timeZone }, `wall-${timeZone.split('/')[1]}`);
      for (const id of ['cert_tz_wall_midnight', 'cert_tz_wall_late'])
        expect({ timeZone, id, ...rowOf(result, id) }).toEqual({
          timeZone,
          id,
          bucket: 'Expiring in 0–30 days',
          days: '0',
          expiresOn: '2026-11-01',
        });
    }
  });

  // Spec 01 "Dates": "Business dates (order dates and similar) are calendar dates". An expiry entered as a date is
  // stored at midnight UTC; in New York or Los Angeles that instant is the evening before, which would make it
  // expired a day early.
  it('an `expirationDate` at exactly midnight UTC is that calendar date in every zone', async () => {
    for (const timeZone of ['America/New_York', 'America/Los_Angeles', 'Asia/Tokyo']) {
      const result = await run({ asOf: '2026-11-01', timeZone }, `utc-midnight-${timeZone.split('/')[1]}`);
      const row = readFileSync(result.files.csv, 'utf8')
        .split('\r\n')
        .find((line) => line.endsWith(',cert_tz_utc_midnight'));
      const [bucket, , days, expiresOn] = row?.split(',') ?? [];
      expect({ timeZone, bucket, days, expiresOn }).toEqual({
        timeZone,
        bucket: 'Expiring in 0–30 days',
        days: '0',
        expiresOn: '2026-11-01',
      });
    }
  });

  // Spec 03, Certificate: `expirationDate` "timestamp string" (worded apart from `issueDate`'s "ISO 8601 timestamp").
  it('“expirationDate | timestamp string”: epoch, ISO 8601 basic-format and worded-zone timestamps are read; an unreadable one is its own group, showing the value, never “No expiration date”', async () => {
    const result = await run({ asOf: '2026-11-01', timeZone: 'UTC' }, 'timestamp-forms');
    expect(await bucketOf(result, 'cert_ts_epoch_ms')).toBe('Expired');
    expect(await bucketOf(result, 'cert_ts_epoch_s')).toBe('Expiring in 0–30 days');
    expect(await bucketOf(result, 'cert_ts_utc_word')).toBe('Expiring in 0–30 days');
    expect(await bucketOf(result, 'cert_ts_iso_basic_date')).toBe('Expiring in 0–30 days');
    expect(await bucketOf(result, 'cert_ts_iso_basic_time')).toBe('Expired');
    expect(await bucketOf(result, 'cert_ts_unreadable')).toBe('Unreadable expiration date');
    expect(result.perBucket['no_expiration_date']).toBe(0);
    expect(result.perBucket['unreadable_expiration_date']).toBe(1);
    const csvRow = readFileSync(result.files.csv, 'utf8')
      .split('\r\n')
      .find((line) => line.endsWith(',cert_ts_unreadable'));
    expect(csvRow).toContain(',01/11/2026,');
    const book = XLSX.readFile(result.files.xlsx);
    const sheet = XLSX.utils.sheet_to_json<Record<string, unknown>>(
      book.Sheets['Unreadable expiration date']!,
    );
    expect(sheet).toEqual([
      expect.objectContaining({
        'Certificate id': 'cert_ts_unreadable',
        'Expiration date as given': '01/11/2026',
      }),
    ]);
    const html = readFileSync(result.files.html, 'utf8');
    const table = html.slice(html.indexOf('id="bucket-unreadable_expiration_date"'));
    expect(table.slice(0, table.indexOf('</table>'))).toContain('01/11/2026');
  });

  it('an unknown time zone fails at once, naming it and the zone it most likely meant', async () => {
    await expect(run({ asOf: '2026-11-02', timeZone: 'Europe/Stokholm' }, 'bad-zone')).rejects.toMatchObject({
      cause: {
        message: expect.stringContaining(
          `timeZone 'Europe/Stokholm' is not a known IANA time zone (did you mean "Europe/Stockholm"?)`,
        ),
      },
    });
  });
});

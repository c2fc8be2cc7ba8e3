import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as XLSX from 'xlsx';
import type { CertificateReportResult } from '../../activities/certificate-report';
import { TraceJob } from '../../worker/search-attributes';
import { applySchedules } from '../../worker/schedules';
import { certificateReport } from '../../workflows';
import { buildDemoSeed } from '../../sandbox/seed/demo';
import { cliEnv, startTestStack, traceSync, waitResult, type TestStack } from '../harness';
import { findChromium, probeFirstScreen, screenshot } from './report-browser';

interface RawCertificate {
  id: string;
  status: string;
  expirationDate: string | null;
  fileUrl: string | null;
}

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Reads the sandbox's certificates over plain HTTP: the test's own view, independent of the job's client. */
async function sandboxCertificates(stack: TestStack): Promise<RawCertificate[]> {
  const all: RawCertificate[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${stack.sandbox.baseUrl}/certificates?limit=100&page=${page}`, {
      headers: { companyapikey: stack.apiKey },
    });
    const body = (await response.json()) as {
      data: RawCertificate[];
      metadata: { pagination: { totalPages: number } };
    };
    all.push(...body.data);
    if (page >= body.metadata.pagination.totalPages) return all;
  }
}

/** Direct computation: days from as-of to the expiry's UTC date; expired below 0; first threshold that fits. */
function expectedBuckets(certificates: RawCertificate[], asOf: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of certificates) {
    if (c.status === 'DRAFT' || c.status === 'REJECTED') continue;
    let bucket = 'no_expiration_date';
    if (c.expirationDate) {
      const days = (Date.parse(c.expirationDate.slice(0, 10)) - Date.parse(asOf)) / DAY;
      bucket =
        days < 0
          ? 'expired'
          : days <= 30
            ? 'within_30'
            : days <= 60
              ? 'within_60'
              : days <= 90
                ? 'within_90'
                : 'not_expiring';
    }
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return counts;
}

function nonZero(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}

/** Tag balance of an HTML document, void elements aside: every opened element is closed in order. */
function assertWellFormedHtml(html: string): void {
  expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  const voids = new Set(['meta', 'br', 'hr', 'img', 'input', 'link']);
  const stack: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?>/g)) {
    const [, closing, rawName] = match;
    const name = (rawName ?? '').toLowerCase();
    if (voids.has(name)) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
}

describe('certificateReport on a real Temporal dev server', () => {
  let stack: TestStack;
  let certificates: RawCertificate[];
  const today = isoDay(Date.now());
  const run = async (asOf: string): Promise<CertificateReportResult> =>
    stack.client.workflow.execute(certificateReport, {
      args: [{ asOf }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId(`cert-report-${asOf}`),
      typedSearchAttributes: [{ key: TraceJob, value: 'certificate-report' }],
    });

  beforeAll(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cert-report-'));
    stack = await startTestStack({ config: { dataDir } });
    certificates = await sandboxCertificates(stack);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('buckets match a direct computation from the sandbox data, in one call per 100 certificates', async () => {
    const first = await run(isoDay(Date.now() - 60 * DAY));
    expect(first.changes.previousAsOf).toBeNull();

    const result = await run(today);
    expect(result.total).toBe(
      certificates.filter((c) => c.status !== 'DRAFT' && c.status !== 'REJECTED').length,
    );
    expect(nonZero(result.perBucket)).toEqual(expectedBuckets(certificates, today));
    expect(result.perBucket['expired']).toBeGreaterThan(0);
    expect(result.perBucket['within_30']).toBeGreaterThan(0);
    // Spec 03: GET /certificates takes a `status` filter, so only the four reported statuses are read, one list
    // each (a draft or rejected certificate costs no read). This replaced reading every certificate and dropping some.
    const perStatus = ['REQUESTED', 'APPROVED', 'ACKNOWLEDGED', 'NOT_VERIFIABLE'].map((status) =>
      Math.max(1, Math.ceil(certificates.filter((c) => c.status === status).length / 100)),
    );
    // Once every list is read, the lists read before the last are asked their total again (one call each): a
    // certificate whose status moved into one of them meanwhile was read in no list.
    expect(result.apiCalls).toBe(perStatus.reduce((a, b) => a + b, 0) + perStatus.length - 1);
  });

  it('writes an xlsx that opens with SheetJS with a sheet per bucket holding its certificates', () => {
    const folder = path.join(stack.config.dataDir, 'reports', 'certificate-expiry', today);
    const book = XLSX.readFile(path.join(folder, `certificate-expiry-${today}.xlsx`));
    expect(book.SheetNames).toEqual(
      expect.arrayContaining(['Summary', 'Newly expired', 'Expired', 'Expiring in 0–30 days']),
    );
    const expected = expectedBuckets(certificates, today);
    const rows = (sheet: string) => XLSX.utils.sheet_to_json(book.Sheets[sheet]!).length;
    expect(rows('Expired')).toBe(expected['expired']);
    expect(rows('Expiring in 0–30 days')).toBe(expected['within_30']);
    expect(rows('Expiring after 90 days')).toBe(expected['not_expiring'] ?? 0);
  });

  it('writes a well-formed html page and a csv, and stores no signed file address', () => {
    const folder = path.join(stack.config.dataDir, 'reports', 'certificate-expiry', today);
    const html = readFileSync(path.join(folder, `certificate-expiry-${today}.html`), 'utf8');
    assertWellFormedHtml(html);
    expect(html).toContain('Anatolia Garments');
    const csv = readFileSync(path.join(folder, `certificate-expiry-${today}.csv`), 'utf8');
    const signed = certificates.map((c) => c.fileUrl).filter((url): url is string => Boolean(url));
    expect(signed.length).toBeGreaterThan(0);
    for (const file of [html, csv, readFileSync(path.join(folder, 'summary.json'), 'utf8')]) {
      expect(file).not.toContain('signature=');
      expect(file).not.toContain(stack.apiKey);
    }
  });

  it('a run for an earlier date compares with the report before it and lists different changes', async () => {
    const monthAgo = isoDay(Date.now() - 30 * DAY);
    const earlier = await run(monthAgo);
    const later = await run(today);
    expect(earlier.changes.previousAsOf).toBe(isoDay(Date.now() - 60 * DAY));
    expect(later.changes.previousAsOf).toBe(monthAgo);
    const sixtyAgo = isoDay(Date.now() - 60 * DAY);
    const expiredBetween = (from: string, to: string) =>
      certificates.filter(
        (c) =>
          c.status !== 'DRAFT' &&
          c.status !== 'REJECTED' &&
          c.expirationDate !== null &&
          c.expirationDate.slice(0, 10) >= from &&
          c.expirationDate.slice(0, 10) < to,
      ).length;
    expect(earlier.changes.newlyExpired).toBe(expiredBetween(sixtyAgo, monthAgo));
    expect(later.changes.newlyExpired).toBe(expiredBetween(monthAgo, today));
    expect(earlier.changes).not.toEqual(later.changes);
  });

  const chromium = findChromium();
  if (!chromium) {
    console.log(
      'SKIPPED: the html screenshot test needs headless Chromium (Debian package `chromium`: apt-get install -y chromium)',
    );
  }
  (chromium ? it : it.skip)(
    'the html opens with the action items on its first screen (headless Chromium, 1280×900)',
    async () => {
      const folder = path.join(stack.config.dataDir, 'reports', 'certificate-expiry', today);
      const file = path.join(folder, `certificate-expiry-${today}.html`);
      const html = readFileSync(file, 'utf8');
      const png = path.join(stack.config.dataDir, `certificate-expiry-${today}.png`);
      await screenshot(chromium!, file, png);
      expect(readFileSync(png).subarray(1, 4).toString('latin1')).toBe('PNG');

      const probe = await probeFirstScreen(chromium!, html, path.join(stack.config.dataDir, 'probe.html'), [
        '#card-newly-expired',
        '#card-within_30',
        '#newly-expired caption',
        '#newly-expired tbody tr:first-child',
        '#bucket-within_30 caption',
        '#bucket-within_30 tbody tr:first-child',
        '#bucket-expired',
      ]);
      expect(probe.viewport.width).toBe(1280);
      for (const selector of [
        '#card-newly-expired',
        '#card-within_30',
        '#newly-expired caption',
        '#newly-expired tbody tr:first-child',
        '#bucket-within_30 caption',
        '#bucket-within_30 tbody tr:first-child',
      ]) {
        expect([selector, probe.inFirstScreen[selector]]).toEqual([selector, true]);
      }
      // The newly expired card is red when something expired; the long list of every expired certificate is last.
      const red = /rgb\((\d+), (\d+), (\d+)\)/.exec(probe.backgrounds['#card-newly-expired'] ?? '');
      expect(red).not.toBeNull();
      expect(Number(red![1])).toBeGreaterThan(150);
      expect(Number(red![2])).toBeLessThan(80);
      expect(probe.inFirstScreen['#bucket-expired']).toBe(false);
      expect(probe.top['#bucket-expired']).toBeGreaterThan(probe.top['#bucket-within_30 caption']!);
      expect(probe.dateCells).toBeGreaterThan(0);
      expect(probe.wrappedDates).toBe(0);
    },
  );

  it('rejects a malformed as-of date with a message that says what to send', async () => {
    await expect(run('22/11/2026')).rejects.toMatchObject({
      cause: { message: expect.stringContaining("asOf '22/11/2026' must be a date in the form YYYY-MM-DD") },
    });
  });

  it('a schedule applied from config starts a run when triggered, reporting as of its nominal date', async () => {
    const scheduleId = `cert-report-test-${Date.now()}`;
    const applied = await applySchedules(
      stack.client,
      {
        schedules: [
          {
            id: scheduleId,
            workflow: 'certificateReport',
            cron: '0 2 * * *',
            timeZone: 'UTC',
            input: {},
            overlap: 'skip',
            catchupWindow: '1d',
            pauseOnFailure: false,
            paused: false,
          },
        ],
      },
      stack.taskQueue,
    );
    expect(applied).toEqual([{ id: scheduleId, action: 'created' }]);
    const again = await applySchedules(
      stack.client,
      {
        schedules: [
          {
            id: scheduleId,
            // A schedules file written before the jobs were renamed names the former workflow type.
            workflow: 'certificateExpiryReport',
            cron: '30 3 * * *',
            timeZone: 'Europe/Stockholm',
            input: {},
            overlap: 'skip',
            catchupWindow: '1d',
            pauseOnFailure: false,
            paused: false,
          },
        ],
      },
      stack.taskQueue,
    );
    expect(again).toEqual([{ id: scheduleId, action: 'updated' }]);
    const handle = stack.client.schedule.getHandle(scheduleId);
    try {
      const described = await handle.describe();
      expect(described.spec.calendars?.length ?? 0).toBeGreaterThan(0);
      expect(described.spec.timezone).toBe('Europe/Stockholm');
      expect(described.action.type === 'startWorkflow' && described.action.workflowType).toBe(
        'certificateReport',
      );
      await handle.trigger();
      let workflowId: string | undefined;
      for (let i = 0; i < 100 && !workflowId; i++) {
        workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(workflowId).toMatch(new RegExp(`^${scheduleId}-`));
      const result = (await stack.client.workflow.getHandle(workflowId!).result()) as CertificateReportResult;
      // The schedule's time zone turns its nominal time into the report date.
      const stockholmToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Stockholm' }).format(
        new Date(),
      );
      expect(result.asOf).toBe(stockholmToday);
      expect(existsSync(result.files.xlsx)).toBe(true);
    } finally {
      await handle.delete();
    }
  });

  it('trace-sync certificate-report --as-of --wait and schedules apply work against the stack', async () => {
    const env = cliEnv(stack);
    const cli = (...args: string[]) => traceSync(args, env, 90_000);

    const backfill = isoDay(Date.now() - 10 * DAY);
    const report = await cli('certificate-report', '--as-of', backfill, '--wait');
    expect(report.stderr).toBe('');
    expect(report.status).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`Started workflow cert-report-${backfill}-`));
    const printed = waitResult<CertificateReportResult>(report.stdout);
    expect(printed.asOf).toBe(backfill);
    expect(nonZero(printed.perBucket)).toEqual(expectedBuckets(certificates, backfill));

    const bad = await cli('certificate-report', '--as-of', '2026-13-45');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('expected a date in the form YYYY-MM-DD');

    // The zone is checked by the CLI before any workflow starts.
    const badZone = await cli('certificate-report', '--time-zone', 'Europe/Stokholm', '--wait');
    expect(badZone.status).not.toBe(0);
    expect(badZone.stderr).toContain("'Europe/Stokholm' is not a known IANA time zone");
    expect(badZone.stdout).not.toContain('Started workflow');

    const file = path.join(stack.config.dataDir, 'schedules.json');
    const id = `cli-cert-report-${Date.now()}`;
    writeFileSync(
      file,
      JSON.stringify({
        schedules: [{ id, workflow: 'certificateReport', cron: '0 2 * * *', timeZone: 'Europe/Stockholm' }],
      }),
    );
    const applied = await cli('schedules', 'apply', '--file', file);
    expect(applied.stdout).toContain(`created  ${id}`);
    expect((await cli('schedules', 'apply', '--file', file)).stdout).toContain(`updated  ${id}`);
    // The next run in the schedule's own zone (02:00 local, with its offset) and in UTC.
    expect((await cli('schedules', 'list')).stdout).toMatch(
      new RegExp(
        `${id}\\s+certificateReport\\s+next \\d{4}-\\d{2}-\\d{2}T02:00:00\\+0[12]:00 Europe/Stockholm \\(\\d{4}-\\d{2}-\\d{2}T0[01]:00:00Z UTC\\)`,
      ),
    );
    writeFileSync(
      file,
      JSON.stringify({ schedules: [{ id, workflow: 'certificateReport', cron: 'every night' }] }),
    );
    const invalid = await cli('schedules', 'apply', '--file', file);
    expect(invalid.status).not.toBe(0);
    expect(invalid.stderr).toContain('schedules.0.cron: expected five cron fields');
    await stack.client.schedule.getHandle(id).delete();
  });
});

/**
 * Spec 03, Certificate: "expirationDate | timestamp string". A timestamp expires at an instant, so the report
 * classifies it by its calendar date in one zone (the input's `timeZone`, which a schedule fills with its own zone),
 * the same zone that decides the as-of date. These certificates sit on the edges in Europe/Stockholm: local
 * midnight, one second before it, and both DST changes of 2026 (29 March, 25 October).
 */
/**
 * A stack whose sandbox holds the demo seed with its certificates replaced by `certificates(template)`, the template
 * being the seed's approved SCOPE certificate.
 */
async function stackWithCertificates(
  prefix: string,
  certificates: (template: Record<string, unknown>) => Array<Record<string, unknown>>,
): Promise<TestStack> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  const seed = buildDemoSeed(Date.now()) as Record<string, unknown>;
  const template = (seed['certificates'] as Array<Record<string, unknown>>).find(
    (c) => c['status'] === 'APPROVED' && c['type'] === 'SCOPE',
  )!;
  seed['certificates'] = certificates(template);
  const seedFile = path.join(dataDir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seed));
  return startTestStack({ config: { dataDir }, sandbox: { seedFile } });
}

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
    // Day and month in an order nothing says: not read.
    cert_ts_unreadable: '01/11/2026',
  };
  const run = (input: { asOf: string; timeZone?: string }, name: string): Promise<CertificateReportResult> =>
    stack.client.workflow.execute(certificateReport, {
      args: [input],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId(`cert-report-tz-${name}`),
    });
  const bucketOf = async (result: CertificateReportResult, id: string) => {
    const csv = readFileSync(result.files.csv, 'utf8');
    const row = csv.split('\r\n').find((line) => line.endsWith(`,${id}`));
    return row?.split(',').slice(0, 1)[0];
  };

  beforeAll(async () => {
    stack = await stackWithCertificates('cert-report-tz-', (template) =>
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

  // Spec 03, Certificate: `expirationDate` "timestamp string" (worded apart from `issueDate`'s "ISO 8601 timestamp").
  it('“expirationDate | timestamp string”: epoch and worded-zone timestamps are read; an unreadable one is its own group, showing the value, never “No expiration date”', async () => {
    const result = await run({ asOf: '2026-11-01', timeZone: 'UTC' }, 'timestamp-forms');
    expect(await bucketOf(result, 'cert_ts_epoch_ms')).toBe('Expired');
    expect(await bucketOf(result, 'cert_ts_epoch_s')).toBe('Expiring in 0–30 days');
    expect(await bucketOf(result, 'cert_ts_utc_word')).toBe('Expiring in 0–30 days');
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

  it('an unknown time zone fails at once, naming it', async () => {
    await expect(run({ asOf: '2026-11-02', timeZone: 'Europe/Stokholm' }, 'bad-zone')).rejects.toMatchObject({
      cause: { message: expect.stringContaining("timeZone 'Europe/Stokholm' is not a known IANA time zone") },
    });
  });
});

// TEMPORAL-NOTES: "A payload errors at 2 MB"; DESIGN: "Large data never travels in a payload". The result lists the
// most urgent suppliers; every supplier is in summary.json and the xlsx's By supplier sheet.
describe('certificateReport with more suppliers than the result lists', () => {
  const SUPPLIERS = 205;
  let stack: TestStack;

  beforeAll(async () => {
    // Certificates the brand created for suppliers of its own (so it sees them), one supplier each; the first
    // expired, so it is the most urgent.
    stack = await stackWithCertificates('cert-report-suppliers-', (template) =>
      Array.from({ length: SUPPLIERS }, (_, i) => ({
        ...template,
        id: `cert_many_${String(i).padStart(3, '0')}`,
        companyId: `cmp_many_${String(i).padStart(3, '0')}`,
        createdByCompanyId: 'cmp_brand_nordic_threads',
        expirationDate: i === 0 ? '2026-10-01T00:00:00Z' : '2027-12-01T00:00:00Z',
      })),
    );
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('lists the 200 most urgent suppliers, says how many more and where every one is', async () => {
    const result = await stack.client.workflow.execute(certificateReport, {
      args: [{ asOf: '2026-11-02' }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('cert-report-suppliers'),
    });
    expect(result.total).toBe(SUPPLIERS);
    expect(result.bySupplier).toHaveLength(200);
    expect(result.bySupplier[0]).toMatchObject({ companyId: 'cmp_many_000', perBucket: { expired: 1 } });
    expect(result).toMatchObject({ suppliers: SUPPLIERS, suppliersOmitted: SUPPLIERS - 200 });
    const summary = JSON.parse(readFileSync(result.files.json, 'utf8')) as CertificateReportResult;
    expect(summary.bySupplier).toHaveLength(SUPPLIERS);
    expect(summary).toMatchObject({ suppliers: SUPPLIERS, suppliersOmitted: 0 });
    const workbook = XLSX.readFile(result.files.xlsx);
    expect(XLSX.utils.sheet_to_json(workbook.Sheets['By supplier'] as XLSX.WorkSheet)).toHaveLength(
      SUPPLIERS,
    );
  });
});

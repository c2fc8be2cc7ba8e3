import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as XLSX from 'xlsx';
import type { CertificateReportResult } from '../../activities/certificate-report';
import { TraceJob } from '../../worker/search-attributes';
import { applySchedules } from '../../worker/schedules';
import { certificateExpiryReport } from '../../workflows';
import { repoRoot } from '../../worker/paths';
import { readHarnessInfo, startTestStack, type TestStack } from '../harness';

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
    const body = (await response.json()) as { data: RawCertificate[]; metadata: { pagination: { totalPages: number } } };
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
      bucket = days < 0 ? 'expired' : days <= 30 ? 'within_30' : days <= 60 ? 'within_60' : days <= 90 ? 'within_90' : 'not_expiring';
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

describe('certificateExpiryReport on a real Temporal dev server', () => {
  let stack: TestStack;
  let certificates: RawCertificate[];
  const today = isoDay(Date.now());
  const run = async (asOf: string): Promise<CertificateReportResult> =>
    stack.client.workflow.execute(certificateExpiryReport, {
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
    expect(result.total).toBe(certificates.filter((c) => c.status !== 'DRAFT' && c.status !== 'REJECTED').length);
    expect(nonZero(result.perBucket)).toEqual(expectedBuckets(certificates, today));
    expect(result.perBucket['expired']).toBeGreaterThan(0);
    expect(result.perBucket['within_30']).toBeGreaterThan(0);
    expect(result.apiCalls).toBe(Math.ceil(certificates.length / 100));
  });

  it('writes an xlsx that opens with SheetJS with a sheet per bucket holding its certificates', () => {
    const folder = path.join(stack.config.dataDir, 'reports', 'certificate-expiry', today);
    const book = XLSX.readFile(path.join(folder, `certificate-expiry-${today}.xlsx`));
    expect(book.SheetNames).toEqual(expect.arrayContaining(['Summary', 'Newly expired', 'Expired', 'Expiring within 30 days']));
    const expected = expectedBuckets(certificates, today);
    const rows = (sheet: string) => XLSX.utils.sheet_to_json(book.Sheets[sheet]!).length;
    expect(rows('Expired')).toBe(expected['expired']);
    expect(rows('Expiring within 30 days')).toBe(expected['within_30']);
    expect(rows('Not expiring soon')).toBe(expected['not_expiring'] ?? 0);
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

  it('rejects a malformed as-of date with a message that says what to send', async () => {
    await expect(run('22/11/2026')).rejects.toMatchObject({
      cause: { message: expect.stringContaining("asOf '22/11/2026' must be a date in the form YYYY-MM-DD") },
    });
  });

  it('a schedule applied from config starts a run when triggered, reporting as of its nominal date', async () => {
    const scheduleId = `cert-report-test-${Date.now()}`;
    const applied = await applySchedules(
      stack.client,
      { schedules: [{ id: scheduleId, workflow: 'certificateExpiryReport', cron: '0 2 * * *', timeZone: 'UTC', input: {}, overlap: 'skip', catchupWindow: '1d', pauseOnFailure: false, paused: false }] },
      stack.taskQueue,
    );
    expect(applied).toEqual([{ id: scheduleId, action: 'created' }]);
    const again = await applySchedules(
      stack.client,
      { schedules: [{ id: scheduleId, workflow: 'certificateExpiryReport', cron: '30 3 * * *', timeZone: 'Europe/Stockholm', input: {}, overlap: 'skip', catchupWindow: '1d', pauseOnFailure: false, paused: false }] },
      stack.taskQueue,
    );
    expect(again).toEqual([{ id: scheduleId, action: 'updated' }]);
    const handle = stack.client.schedule.getHandle(scheduleId);
    try {
      const described = await handle.describe();
      expect(described.spec.calendars?.length ?? 0).toBeGreaterThan(0);
      expect(described.spec.timezone).toBe('Europe/Stockholm');
      await handle.trigger();
      let workflowId: string | undefined;
      for (let i = 0; i < 100 && !workflowId; i++) {
        workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(workflowId).toMatch(new RegExp(`^${scheduleId}-`));
      const result = (await stack.client.workflow.getHandle(workflowId!).result()) as CertificateReportResult;
      // The schedule's time zone turns its nominal time into the report date.
      const stockholmToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Stockholm' }).format(new Date());
      expect(result.asOf).toBe(stockholmToday);
      expect(existsSync(result.files.xlsx)).toBe(true);
    } finally {
      await handle.delete();
    }
  });

  it('trace-sync cert-report --as-of --wait and schedules apply work against the stack', async () => {
    const harness = readHarnessInfo();
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: harness.address,
      TEMPORAL_NAMESPACE: harness.namespace,
      TRACE_TASK_QUEUE: stack.taskQueue,
      TRACE_DATA_DIR: stack.config.dataDir,
    };
    // Asynchronous on purpose: this process hosts the worker that must run the workflow the CLI starts.
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), ...args], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
        child.once('close', (status) => {
          clearTimeout(timer);
          resolve({ status, stdout, stderr });
        });
      });

    const backfill = isoDay(Date.now() - 10 * DAY);
    const report = await cli('cert-report', '--as-of', backfill, '--wait');
    expect(report.stderr).toBe('');
    expect(report.status).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`Started workflow cert-report-${backfill}-`));
    const printed = JSON.parse(report.stdout.slice(report.stdout.lastIndexOf('\n{\n') + 1)) as CertificateReportResult;
    expect(printed.asOf).toBe(backfill);
    expect(nonZero(printed.perBucket)).toEqual(expectedBuckets(certificates, backfill));

    const bad = await cli('cert-report', '--as-of', '2026-13-45');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('expected a date in the form YYYY-MM-DD');

    const file = path.join(stack.config.dataDir, 'schedules.json');
    const id = `cli-cert-report-${Date.now()}`;
    writeFileSync(file, JSON.stringify({ schedules: [{ id, workflow: 'certificateExpiryReport', cron: '0 2 * * *' }] }));
    const applied = await cli('schedules', 'apply', '--file', file);
    expect(applied.stdout).toContain(`created  ${id}`);
    expect((await cli('schedules', 'apply', '--file', file)).stdout).toContain(`updated  ${id}`);
    expect((await cli('schedules', 'list')).stdout).toMatch(new RegExp(`${id}\\s+certificateExpiryReport\\s+next \\d{4}-`));
    writeFileSync(file, JSON.stringify({ schedules: [{ id, workflow: 'certificateExpiryReport', cron: 'every night' }] }));
    const invalid = await cli('schedules', 'apply', '--file', file);
    expect(invalid.status).not.toBe(0);
    expect(invalid.stderr).toContain('schedules.0.cron: expected five cron fields');
    await stack.client.schedule.getHandle(id).delete();
  });
});

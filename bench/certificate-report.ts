/**
 * Job 4 at scale: 5,000 certificates (every status) through the report's two activities against the sandbox over
 * HTTP, reading only the reported statuses as the workflow does. Prints API calls per 100 reported certificates
 * (aim: about one) and time. Run: node bin/run-ts.cjs bench/cert-report.ts
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createCertificateReportActivities,
  type CertificateReportResult,
  type FetchedCertificates,
} from '../activities/certificate-report';
import { TraceabilityClient } from '../connectors/traceability';
import { startSandbox } from '../sandbox/server';
import { buildDemoSeed } from '../sandbox/seed/demo';
import { loadConfig } from '../worker/config';

const CERTIFICATES = 5000;

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-cert-report-'));
  const now = Date.now();
  const seed = buildDemoSeed(now) as Record<string, unknown>;
  const demo = seed['certificates'] as Array<Record<string, unknown>>;
  const holders = demo.filter((c) => c['type'] !== 'TRANSACTION' && c['status'] !== 'DRAFT');
  const reportedStatuses = ['REQUESTED', 'APPROVED', 'ACKNOWLEDGED', 'NOT_VERIFIABLE'] as const;
  seed['certificates'] = Array.from({ length: CERTIFICATES }, (_, i) => {
    const template = holders[i % holders.length] ?? {};
    const expiration = now + Math.round(((i / CERTIFICATES) * 4 - 2) * 365 * 86_400_000);
    return { ...template, id: `cert_bench_${i}`, expirationDate: new Date(expiration).toISOString() };
  });
  const seedFile = path.join(dir, 'seed.json');
  await writeFile(seedFile, JSON.stringify(seed));

  const sandbox = await startSandbox({ port: 0, seedFile, rateLimitPerMinute: 1_000_000 });
  const client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  const activities = createCertificateReportActivities({
    client,
    config: { ...loadConfig({ TRACE_DATA_DIR: dir }) },
  });
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });
  try {
    const started = performance.now();
    const fetched: FetchedCertificates = await env.run(activities.fetchCertificatesForReport, {
      runKey: 'bench',
      statuses: [...reportedStatuses],
    });
    const fetchedAt = performance.now();
    const result: CertificateReportResult = await env.run(activities.writeCertificateExpiryReport, {
      certificates: fetched.ref,
      apiCalls: fetched.apiCalls,
      asOf: new Date(now).toISOString().slice(0, 10),
      thresholdsDays: [30, 60, 90],
    });
    const done = performance.now();
    const stats = client.stats();
    const visible = (seed['certificates'] as unknown[]).length;
    console.log(
      `certificates seeded:         ${visible} (every status but DRAFT; REJECTED ones are not reported)`,
    );
    console.log(`certificates read:           ${fetched.certificates} (reported: ${result.total})`);
    console.log(
      `API calls:                   ${stats.calls} (${(stats.calls / (result.total / 100)).toFixed(2)} per 100 reported; reading every status would take ${Math.ceil(visible / 100)})`,
    );
    console.log(`429s / retries:              ${stats.rateLimited} / ${stats.retries}`);
    console.log(`read + stage:                ${(fetchedAt - started).toFixed(0)} ms`);
    console.log(`classify + write 4 files:    ${(done - fetchedAt).toFixed(0)} ms`);
    console.log(`total:                       ${(done - started).toFixed(0)} ms`);
    console.log(`buckets:                     ${JSON.stringify(result.perBucket)}`);
  } finally {
    await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * Spec 01, Errors: 401 `token_or_api_key_invalid` is a "Missing or invalid key": an answer about the worker's key. A
 * key revoked while the report reads the certificate list must fail the run naming the key, never publish a report
 * short of the pages it could not read; once the key is back the report reads every certificate.
 */
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { CertificateReportResult } from '../../activities/certificate-report';
import { createActivities } from '../../activities';
import type { TraceabilityClient } from '../../connectors/traceability';
import type { CertificatesResource } from '../../connectors/traceability/resources/certificates';
import type { TestStack } from '../harness';
import { certificateReportRunner, startCertificateReportStack } from './certificate-report-stack';

jest.setTimeout(120_000);

const CERTIFICATES = 250;
let stack: TestStack | undefined;
/** Set: the worker's key is revoked once the report's first certificate page has been answered. */
let revokeAfterPage = false;
let restore: (() => void) | undefined;

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};

function revokeKey(): () => void {
  const { sandbox, apiKey } = started();
  const record = sandbox.ctx.apiKeys.get(apiKey);
  if (!record) throw new Error('the worker key is not in the sandbox');
  sandbox.ctx.apiKeys.delete(apiKey);
  return () => sandbox.ctx.apiKeys.set(apiKey, record);
}

function revokingAfterPage(client: TraceabilityClient): TraceabilityClient {
  const certificates = Object.create(client.certificates) as CertificatesResource;
  certificates.list = async (...args: Parameters<CertificatesResource['list']>) => {
    const page = await client.certificates.list(...args);
    if (revokeAfterPage && !restore) restore = revokeKey();
    return page;
  };
  return Object.assign(Object.create(client) as TraceabilityClient, { certificates });
}

beforeAll(async () => {
  stack = await startCertificateReportStack(
    'cert-key-refused-',
    (template) =>
      Array.from({ length: CERTIFICATES }, (_, n) => ({
        ...template,
        id: `cert_keyref_${n}`,
        updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      })),
    { activities: (deps) => createActivities({ ...deps, client: revokingAfterPage(deps.client) }) },
  );
}, 60_000);

afterAll(async () => {
  restore?.();
  await stack?.stop();
});

const report = certificateReportRunner(started);

it('"401 token_or_api_key_invalid: Missing or invalid key": a key revoked between two pages fails the report naming the key; with the key back it reads every certificate', async () => {
  revokeAfterPage = true;
  const failed = await report({}, 'key-refused').then(
    (result) => result,
    (error: unknown) => error,
  );
  revokeAfterPage = false;
  restore?.();
  restore = undefined;

  expect(
    failed instanceof WorkflowFailedError ? 'run failed' : (failed as CertificateReportResult).total,
  ).toBe('run failed');
  const failures: ApplicationFailure[] = [];
  for (let current: unknown = failed; current instanceof Error; current = current.cause)
    if (current instanceof ApplicationFailure) failures.push(current);
  expect(failures.map((failure) => failure.type)).toContain('TraceabilityApiError:token_or_api_key_invalid');
  expect(failures.every((failure) => failure.nonRetryable)).toBe(true);
  expect(failures.map((failure) => failure.message).join('\n')).toContain('TRACEABILITY_API_KEY');

  const again = await report({}, 'key-back');
  expect(again.total).toBe(CERTIFICATES);
});

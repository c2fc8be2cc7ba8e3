/**
 * Spec 01, Errors: 401 `token_or_api_key_invalid` is a "Missing or invalid key": an answer about the worker's key. A
 * key revoked while the report reads the certificate list must fail the run naming the key, never publish a report
 * short of the pages it could not read; once the key is back the report reads every certificate.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { CertificateReportResult } from '../../activities/certificate-report';
import { createActivities } from '../../activities';
import type { TraceabilityClient } from '../../connectors/traceability';
import type { CertificatesResource } from '../../connectors/traceability/resources/certificates';
import type { TestStack } from '../harness';
import { certificateReportRunner, startCertificateReportStack } from './certificate-report-stack';
import { expectKeyRefused, keyRevocation } from './key-revocation';

jest.setTimeout(120_000);

const CERTIFICATES = 250;
let stack: TestStack | undefined;

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};
/** Fired once the report's first certificate page has been answered. */
const revocation = keyRevocation(started);

function revokingAfterPage(client: TraceabilityClient): TraceabilityClient {
  const certificates = Object.create(client.certificates) as CertificatesResource;
  certificates.list = async (...args: Parameters<CertificatesResource['list']>) => {
    const page = await client.certificates.list(...args);
    revocation.fire();
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
  revocation.restore();
  await stack?.stop();
});

const report = certificateReportRunner(started);

it('"401 token_or_api_key_invalid: Missing or invalid key": a key revoked between two pages fails the report naming the key; with the key back it reads every certificate', async () => {
  const failed = await revocation.during(() => report({}, 'key-refused'));

  expect(
    failed instanceof WorkflowFailedError ? 'run failed' : (failed as CertificateReportResult).total,
  ).toBe('run failed');
  expectKeyRefused(failed, started().apiKey);

  const again = await report({}, 'key-back');
  expect(again.total).toBe(CERTIFICATES);
});

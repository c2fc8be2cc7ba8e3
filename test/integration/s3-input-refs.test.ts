/**
 * `s3://bucket/key` inputs as a user types them in the Web UI: a key with spaces and non-ASCII letters is read as it
 * is, and a reference S3 refuses outright (a bucket name it does not take) fails the run at once naming it, as a
 * missing key does, instead of being retried for ever.
 */
import { erpOrders, plmImport } from '../../workflows';
import { failureOf, failureText } from '../harness/errors';
import { describeWithS3 } from '../harness/versitygw';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { s3JobStack } from './job-stack';

const describeS3 = describeWithS3();

describeS3('s3:// job inputs typed by hand (versitygw)', () => {
  const { s3, stack, store } = s3JobStack('s3-input-refs-');

  it('a key with spaces, a dash, å and a % is read as typed', async () => {
    const rows = nativeRows({ prefix: 'UNIKEY', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    await store().put('inputs/plm/SS 26 – vår %20 #1.csv', toCsv(rows));
    const result = await stack().client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/SS 26 – vår %20 #1.csv` }],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('plm-unicode-key'),
    });
    expect(result.products).toMatchObject({ created: 3, rejected: 0 });
  });

  it.each([
    ['plm-import', plmImport],
    ['erp-orders', erpOrders],
  ] as const)(
    '%s: a bucket name S3 refuses (Trace_Exports) fails at once naming the reference, not retried for ever',
    async (job, workflow) => {
      const file = 's3://Trace_Exports/orders 2026.csv';
      const started = Date.now();
      const failure = await failureOf(
        stack().client.workflow.execute(workflow, {
          args: [{ file }],
          taskQueue: stack().taskQueue,
          workflowId: stack().workflowId(`${job}-bad-bucket`),
        }),
      );
      expect(Date.now() - started).toBeLessThan(20_000);
      const text = failureText(failure);
      expect(text).toContain(`${file}: S3 refuses the bucket name "Trace_Exports"`);
      expect(text).not.toMatch(/AKIA|secret/i);
    },
    40_000,
  );
});

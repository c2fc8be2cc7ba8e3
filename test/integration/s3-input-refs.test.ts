/**
 * `s3://bucket/key` inputs as a user types them in the Web UI: a key with spaces and non-ASCII letters is read as it
 * is, and a reference S3 refuses outright (a bucket name it does not take) fails the run at once naming it, as a
 * missing key does, instead of being retried for ever.
 */
import { readFile } from 'node:fs/promises';
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

/**
 * A reference an operator types with credentials in it (`s3://AKIA…:secret@bucket/key`), or with no object key, is
 * refused where our code first sees it: the CLI before it starts anything, a Web UI start when the workflow reads its
 * input. The secret is never echoed: not in the error, the CLI's output, the worker's log or the run's history beyond
 * the start event that holds what was typed.
 */
describeS3('s3:// job inputs an operator gets wrong (versitygw)', () => {
  const { s3, stack, cli } = s3JobStack('s3-input-mistakes-');
  // The secret part holds a '/', as AWS secret keys may: the reference then splits at it.
  const secret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzz';
  const withSecret = () => `s3://AKIAIOSFODNN7EXAMPLE:${secret}@${s3().bucket}/trace/inputs/orders.csv`;
  const credentialsSaid = /credentials do not belong in an s3:\/\/ reference.*AWS_ACCESS_KEY_ID.*AWS_PROFILE/;

  const workerLog = async () => readFile(stack().logFile, 'utf8').catch(() => '');

  it.each([
    ['plm-import', plmImport],
    ['erp-orders', erpOrders],
  ] as const)(
    '%s started from the Web UI with credentials in the reference fails at once, the secret shown nowhere',
    async (job, workflow) => {
      const handle = await stack().client.workflow.start(workflow, {
        args: [{ file: withSecret() }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId(`${job}-userinfo`),
      });
      const text = failureText(await failureOf(handle.result()));
      expect(text).toMatch(credentialsSaid);
      expect(text).not.toContain(secret);
      expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
      const events = (await handle.fetchHistory()).events ?? [];
      // The start event holds what was typed; nothing after it repeats it (no activity got it, no failure says it).
      expect(events.length).toBeGreaterThan(1);
      expect(JSON.stringify(events.slice(1))).not.toContain(secret.slice(0, 13));
      expect(await workerLog()).not.toContain(secret.slice(0, 13));
    },
    40_000,
  );

  it('the CLI refuses credentials in the reference before starting anything, the secret shown nowhere', async () => {
    const out = await cli('erp-orders', withSecret());
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(credentialsSaid);
    expect(out.stderr + out.stdout).not.toContain(secret.slice(0, 13));
    expect(out.stderr + out.stdout).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(out.stderr).not.toContain('Started workflow');
    const mapping = await cli('plm-import', `s3://${s3().bucket}/x.csv`, '--mapping', withSecret());
    expect(mapping.status).not.toBe(0);
    expect(mapping.stderr).toMatch(credentialsSaid);
    expect(mapping.stderr + mapping.stdout).not.toContain(secret.slice(0, 13));
  });

  it.each(['s3://trace-exports', 's3://trace-exports/'])(
    '%s (no object key) is refused by the CLI and by a Web UI start, naming the reference',
    async (ref) => {
      const out = await cli('plm-import', ref);
      expect(out.status).not.toBe(0);
      expect(out.stderr).toContain(`${ref} names a bucket but no object key`);
      const text = failureText(
        await failureOf(
          stack().client.workflow.execute(plmImport, {
            args: [{ file: ref }],
            taskQueue: stack().taskQueue,
            workflowId: stack().workflowId(`plm-no-key-${ref.length}`),
          }),
        ),
      );
      expect(text).toContain(`${ref} names a bucket but no object key`);
    },
    40_000,
  );
});

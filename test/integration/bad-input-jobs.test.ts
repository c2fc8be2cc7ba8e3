import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { z } from 'zod';
import { importPlmSpreadsheet, pushErpOrders } from '../../workflows';
import { startTestStack, type TestStack } from '../harness';

/**
 * Broken files through the real jobs (Temporal dev server + sandbox): each run fails at once with a
 * non-retryable error that says what is wrong, and the platform holds nothing new.
 */

const corpus = path.join(__dirname, '..', 'fixtures', 'bad-input');

const stateSchema = z.looseObject({
  catalogue: z.looseObject({ products: z.array(z.looseObject({ id: z.string() })) }),
  orders: z.array(z.looseObject({ id: z.string() })),
});

interface Failed {
  /** What `trace-sync ... --wait` prints after "Workflow <id> failed: " (the workflow failure's cause). */
  shown: string;
  /** The activity's own failure at the bottom of the chain. */
  root: ApplicationFailure;
  ms: number;
  activityAttempts: number;
}

describe('broken files through the jobs: a clear, non-retryable failure and nothing written', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bad-input-jobs-'));
    stack = await startTestStack({
      sandbox: { rateLimitPerMinute: 100_000 },
      config: { dataDir: path.join(dir, 'data') },
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const platform = async () => {
    const response = await fetch(`${stack.sandbox.url}/__sandbox/state`);
    const state = stateSchema.parse(await response.json());
    return { products: state.catalogue.products.length, orders: state.orders.length };
  };

  /** A copy of a corpus file under a name of our own (the worker reads it from there). */
  const copy = (file: string, as = file): string => {
    const target = path.join(dir, as);
    copyFileSync(path.join(corpus, file), target);
    return target;
  };

  async function failure<W extends Workflow>(handle: WorkflowHandle<W>): Promise<Failed> {
    const started = Date.now();
    try {
      await handle.result();
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw error;
      let root: unknown = error;
      for (let depth = 0; depth < 10 && (root as { cause?: unknown }).cause; depth++)
        root = (root as { cause: unknown }).cause;
      if (!(root instanceof ApplicationFailure)) throw new Error(`unexpected failure chain: ${String(root)}`);
      const history = await handle.fetchHistory();
      const activityAttempts = (history.events ?? []).filter(
        (event) => event.activityTaskStartedEventAttributes,
      ).length;
      return {
        shown: error.cause?.message ?? error.message,
        root,
        ms: Date.now() - started,
        activityAttempts,
      };
    }
    throw new Error(`${handle.workflowId} completed; a failure was expected`);
  }

  const push = (file: string) =>
    stack.client.workflow.start(pushErpOrders, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-orders-bad'),
      args: [{ file }],
    });
  const importSheet = (file: string) =>
    stack.client.workflow.start(importPlmSpreadsheet, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-import-bad'),
      args: [{ file, profile: 'native' }],
    });

  describe('pushErpOrders', () => {
    it.each([
      ['orders-truncated.json', /not valid JSON: Unterminated string/],
      ['binary-named.xlsx', /not an xlsx workbook/],
      ['zip-bomb.xlsx', /would inflate to 300 MB.*split the export or save it as csv/],
      ['empty.csv', /the csv file is empty: no header row/],
      ['header-only.csv', /the file has a header row \(row 1\) but no data rows below it; there is nothing to push/],
      [
        'orders-object-not-array.json',
        /a JSON export must be an array of objects, one per order line, or NDJSON/,
      ],
      ['orders-empty-array.json', /the file has no rows/],
      ['orders-truncated.ndjson', /the file looks cut off: its last line \(line 4\).*Export the file again/],
    ])('%s fails once, non-retryable, naming the problem; no order is written', async (file, reason) => {
      const before = await platform();
      const failed = await failure(await push(copy(file)));
      expect(failed.root).toMatchObject({ nonRetryable: true, message: expect.stringMatching(reason) });
      expect(failed.shown).toMatch(reason);
      expect(failed.activityAttempts).toBe(1);
      expect(failed.ms).toBeLessThan(15_000);
      expect(await platform()).toEqual(before);
    });

    // The workflow wraps the activity's failure (as the PLM import does), so `trace-sync push-orders --wait` prints
    // the reason rather than "Activity task failed".
    it('the message the CLI shows for a broken export names the problem', async () => {
      const failed = await failure(await push(copy('orders-truncated.json', 'shown.json')));
      expect(failed.shown).toMatch(/^not valid JSON: Unterminated string/);
      expect(failed.shown).not.toMatch(/Activity task failed/);
      expect(failed.root).toMatchObject({ type: 'ExportReadError', nonRetryable: true });
    });

    it('a file the worker cannot find fails at once, saying where it looked and what to check', async () => {
      const missing = path.join(dir, 'no-such-export.csv');
      const before = await platform();
      const failed = await failure(await push(missing));
      expect(failed.root).toMatchObject({ nonRetryable: true, type: 'ExportFileError:file_not_found' });
      expect(failed.shown).toBe(failed.root.message);
      expect(
        failed.shown.startsWith(`the export file ${missing} was not found on the worker. Check the path`),
      ).toBe(true);
      expect(failed.shown).toMatch(/worker's file system/);
      expect(failed.shown).not.toMatch(/ENOENT/);
      expect(failed.activityAttempts).toBe(1);
      expect(await platform()).toEqual(before);
    });

    // Issue 17: a header-only export used to complete here while the PLM import refused it; both refuse it now.
    it('a header-only order export fails once, as a header-only product sheet does, and writes nothing', async () => {
      const file = path.join(dir, 'header-only-orders.csv');
      writeFileSync(
        file,
        'order_number,supplier_code,supplier_facility_process,line_number,product_external_id,quantity,unit\n',
      );
      const before = await platform();
      const failed = await failure(await push(file));
      expect(failed.root).toMatchObject({ nonRetryable: true, type: 'ExportReadError:no_data_rows' });
      expect(failed.shown).toBe('the file has a header row (row 1) but no data rows below it; there is nothing to push.');
      expect(failed.activityAttempts).toBe(1);
      expect(await platform()).toEqual(before);
    });
  });

  describe('importPlmSpreadsheet', () => {
    it.each([
      ['binary-named.xlsx', /named \.xlsx but is not an Excel workbook/],
      ['zip-not-xlsx.xlsx', /zip archive but not an Excel workbook/],
      ['zip-bomb.xlsx', /zip bomb/],
      ['empty.csv', /is empty \(0 bytes\)/],
      ['header-only.csv', /header row \(row 1\) but no data rows/],
      ['duplicate-headers.csv', /'name' \(columns B, C\)/],
      ['unknown-delimiter.csv', /is the delimiter one of/],
    ])('%s fails once, non-retryable, naming the problem; no product is written', async (file, reason) => {
      const before = await platform();
      const failed = await failure(await importSheet(copy(file, `plm-${file}`)));
      expect(failed.root).toMatchObject({ nonRetryable: true, message: expect.stringMatching(reason) });
      expect(failed.shown).toMatch(reason);
      expect(failed.activityAttempts).toBe(1);
      expect(failed.ms).toBeLessThan(15_000);
      expect(await platform()).toEqual(before);
    });
  });
});

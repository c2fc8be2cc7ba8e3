import type { Client } from '@temporalio/client';
import { retryPlanFor } from '../../../cli/commands/retry';

/** A client whose one workflow describes as a run of `type` that ended `status`. */
const clientWith = (type: string, status: string): Client =>
  ({
    workflow: {
      getHandle: (workflowId: string) => ({
        workflowId,
        describe: () => Promise.resolve({ type, status: { name: status } }),
      }),
    },
  }) as unknown as Client;

describe('trace-sync retry: the one line it refuses a run with', () => {
  it('a failed plm-import is told in rows and sheets, not orders', async () => {
    const refusal = retryPlanFor(clientWith('plmImport', 'FAILED'), 'plm-import-ss26.csv-1');
    await expect(refusal).rejects.toThrow(
      new Error(
        'plm-import-ss26.csv-1 ended failed, so no row was rejected one by one: fix the cause and import the sheet again',
      ),
    );
  });

  it('a failed erp-orders push is told in orders', async () => {
    const refusal = retryPlanFor(clientWith('erpOrders', 'TERMINATED'), 'erp-orders-po.csv-1');
    await expect(refusal).rejects.toThrow(
      new Error(
        'erp-orders-po.csv-1 ended terminated, so no order was rejected one by one: fix the cause and push the file again',
      ),
    );
  });

  it('a run of another job names that job as the CLI does, with its article', async () => {
    const refusal = retryPlanFor(clientWith('erpPull', 'COMPLETED'), 'erp-pull-1');
    await expect(refusal).rejects.toThrow(
      new Error('erp-pull-1 is an erp-pull run; retry works on erp-orders and plm-import runs'),
    );
  });

  it('a run under a former workflow type is named by its job too', async () => {
    const refusal = retryPlanFor(clientWith('repairBomForks', 'COMPLETED'), 'bom-1');
    await expect(refusal).rejects.toThrow(
      new Error('bom-1 is a bom-repair run; retry works on erp-orders and plm-import runs'),
    );
  });
});

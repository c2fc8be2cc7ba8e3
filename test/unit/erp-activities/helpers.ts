/**
 * The erp-activities tests' shared setup for one order's sync against an in-process sandbox over HTTP.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { orderRun } from '../../../connectors/erp-orders/push-run';
import { PersonDirectory } from '../../../connectors/erp-orders/persons';
import type { OrderSyncContext } from '../../../connectors/erp-orders/sync-order';
import { ApiCalls } from '../../../connectors/staging';
import { TraceabilityClient } from '../../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';

export const BRAND = 'cmp_brand_nordic_threads';
export const SUPPLIER = 'cmp_sup_anatolia_garments';

export interface SyncSandbox {
  sandbox: RunningSandbox;
  /** The brand's client of `sandbox`. */
  client: TraceabilityClient;
  /**
   * What one order's sync is given in the run `runKey` (its journal in the temp folder): not a dry run, and nothing
   * resolved or learned yet.
   */
  context(runKey: string): Promise<OrderSyncContext>;
  /** Closes the client and the sandbox, and removes the temp folder. */
  close(): Promise<void>;
}

/** An in-process sandbox over HTTP for one order's sync, and a temp folder named after `prefix` for the runs' data. */
export async function startSyncSandbox(prefix: string): Promise<SyncSandbox> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 1_000_000 });
  const client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  return {
    sandbox,
    client,
    context: async (runKey) => {
      const run = orderRun(path.join(dir, 'data'), runKey);
      await mkdir(run.file('outcomes'), { recursive: true });
      return {
        api: new ApiCalls(client),
        log: run.journal(0),
        complete: false,
        dryRun: false,
        resolvedStyleIds: new Map(),
        unresolvedRefs: new Set(),
        archivedRefs: new Set(),
        allowTracedLineRemoval: false,
        persons: new PersonDirectory(),
      };
    },
    close: async () => {
      await client.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What a plan calls a company the export gives no code for: the network read names a company without a code by its
 * name (the supplier's network holds the brand, which has none), against an in-process sandbox over HTTP.
 */
import { companyDirectory } from '../../../connectors/erp-orders/platform-reads';
import { ApiCalls } from '../../../connectors/staging';
import { TraceabilityClient } from '../../../connectors/traceability';
import { BRAND, startSyncSandbox, type SyncSandbox } from './helpers';

describe('the network read names a company without a code by its name', () => {
  let sync: SyncSandbox;
  let supplier: TraceabilityClient;
  beforeAll(async () => {
    sync = await startSyncSandbox('company-names-');
    supplier = new TraceabilityClient({ baseUrl: sync.sandbox.baseUrl, apiKey: 'sandbox-key-supplier' });
  });
  afterAll(async () => {
    await supplier.close();
    await sync.close();
  });

  it("gives the codeless brand's name, and no name for a company that has a code", async () => {
    const network = await companyDirectory(new ApiCalls(supplier), [], true);
    expect(network.nameless?.get(BRAND)).toBe('Nordic Threads');
    expect(network.nameless?.has('cmp_sup_gujarat_mills')).toBe(false);
    expect(network.entries.find((entry) => entry.id === 'cmp_sup_gujarat_mills')?.code).toBeDefined();
  });
});

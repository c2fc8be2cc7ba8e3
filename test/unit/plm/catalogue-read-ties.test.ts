import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { readCatalogue } from '../../../connectors/plm-import/catalogue';
import { ApiCalls } from '../../../connectors/staging';
import { TraceabilityClient } from '../../../connectors/traceability';
import { buildDemoSeed } from '../../../sandbox/seed/demo';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';

/**
 * Spec 01 gives GET /styles sort columns (`createdAt` by default) and no order among equal values; products seeded
 * or created in one millisecond share `createdAt`. A read by page number may then meet some twice and miss others.
 */
describe('readCatalogue when products with equal sort values come in no stable order', () => {
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;
  let dir: string;
  const keys = Array.from({ length: 150 }, (_, i) => `TIES-${String(i).padStart(3, '0')}`);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'catalogue-ties-'));
    const seed = z
      .looseObject({ catalogue: z.looseObject({ products: z.array(z.unknown()) }) })
      .parse(buildDemoSeed(Date.now()));
    const styles = keys.map((externalId, i) => ({
      id: `style_01TIES${String(i).padStart(20, '0')}`,
      forCompanyId: 'cmp_brand_nordic_threads',
      externalId,
      name: `Ties ${i}`,
      styleTypeId: 'st_tshirts',
      isComponent: false,
      codes: [{ codeId: 'PLM_ID', codeValue: externalId }],
    }));
    const seedFile = path.join(dir, 'seed.json');
    await writeFile(
      seedFile,
      JSON.stringify({
        ...seed,
        catalogue: { ...seed.catalogue, products: [...seed.catalogue.products, ...styles] },
      }),
    );
    sandbox = await startSandbox({ port: 0, seedFile, rateLimitPerMinute: 100_000, qrDelayMs: 0 });
    client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  const found = async (): Promise<number> => {
    const wanted = new Map(keys.map((key) => [key, 'style' as const]));
    const { products } = await readCatalogue(wanted, new ApiCalls(client), () => undefined);
    return new Set(products.filter((p) => keys.includes(p.externalId ?? '')).map((p) => p.externalId)).size;
  };

  it('finds every existing product', async () => {
    expect(await found()).toBe(150);
    await fetch(`${sandbox.url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ productTies: 'shuffled' }),
    });
    for (let attempt = 0; attempt < 3; attempt++) expect(await found()).toBe(150);
  });
});

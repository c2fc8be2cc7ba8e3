import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { TraceabilityClient } from '../../../connectors/traceability';
import { buildDemoSeed } from '../../../sandbox/seed/demo';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';

export interface SeededSandbox {
  sandbox: RunningSandbox;
  client: TraceabilityClient;
  /** GET /styles ties in a fresh order per query ('shuffled') or by creation order ('stable'). */
  setProductTies: (ties: 'stable' | 'shuffled') => Promise<void>;
  close: () => Promise<void>;
}

/** A sandbox of the demo catalogue plus `products` (seeded ones share `createdAt`), with the brand's key. */
export async function sandboxWithProducts(products: readonly unknown[]): Promise<SeededSandbox> {
  const dir = await mkdtemp(path.join(tmpdir(), 'product-ties-'));
  const seed = z
    .looseObject({ catalogue: z.looseObject({ products: z.array(z.unknown()) }) })
    .parse(buildDemoSeed(Date.now()));
  const seedFile = path.join(dir, 'seed.json');
  await writeFile(
    seedFile,
    JSON.stringify({
      ...seed,
      catalogue: { ...seed.catalogue, products: [...seed.catalogue.products, ...products] },
    }),
  );
  const sandbox = await startSandbox({ port: 0, seedFile, rateLimitPerMinute: 100_000, qrDelayMs: 0 });
  const client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  return {
    sandbox,
    client,
    setProductTies: async (productTies) => {
      const answer = await fetch(`${sandbox.url}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ productTies }),
      });
      if (!answer.ok) throw new Error(`PUT /__sandbox/config: ${answer.status}`);
    },
    close: async () => {
      await client.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

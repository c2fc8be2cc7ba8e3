/**
 * Products a scheduled (`sinceLastRun`) repair left unsettled. Its mark moves past their BOM headers once the run
 * finishes, and a fork left alone does not change again, so each is kept here and looked at by the next run of the
 * same mark until a run finds nothing left to report, or an operator deletes its entry. One JSON object per product
 * in the run-data store (`TRACE_DATA_DIR/bom-repair/to-retry-<markName>/<productId>.json`): runs add and drop
 * entries without reading and rewriting a shared list.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { readStoredJson, storeJson } from '../staging';
import { locate } from '../storage';
import type { ProductRepairResult } from './repair-schemas';

const retryEntrySchema = z.strictObject({
  productId: z.string().min(1),
  externalId: z.string().nullable(),
  /** Why the product is kept: what its last run left (counts of lines, or the product's problem). */
  reason: z.string(),
  firstListedAt: z.string(),
  lastListedAt: z.string(),
});
export type RetryEntry = z.infer<typeof retryEntrySchema>;

export function retryFolder(dataDir: string, markName: string): string {
  return join(dataDir, 'bom-repair', `to-retry-${markName}`);
}

const entryFile = (folder: string, productId: string) =>
  join(folder, `${encodeURIComponent(productId)}.json`);

/** The product ids kept for the next run (taken from the entries' names: an unreadable entry still counts). */
export async function retryProductIds(folder: string): Promise<string[]> {
  const { store, key } = locate(folder);
  const prefix = `${key}/`;
  return (await store.list(prefix))
    .map((name) => name.slice(prefix.length))
    .filter((name) => name.endsWith('.json') && !name.includes('/'))
    .map((name) => decodeURIComponent(name.slice(0, -'.json'.length)));
}

/** What a product's result leaves for a later run: null when every line it found was repaired (or none was found). */
export function unsettledReason(result: ProductRepairResult | null): string | null {
  if (!result) return null;
  if (result.problem !== undefined) return result.problem;
  const left = (
    [
      ['ambiguous', result.ambiguous],
      ['unmatched', result.unmatched],
      ['failed', result.failed],
    ] as const
  ).filter(([, count]) => count > 0);
  if (left.length > 0) return left.map(([kind, count]) => `${count} ${kind}`).join(', ');
  if (result.verified !== false) return null;
  const unseen = result.headers.find((header) => header.unverifiable !== undefined)?.unverifiable;
  return unseen === undefined ? 'a repair did not verify' : `a repair cannot be verified: ${unseen}`;
}

/** Keeps the product for the next run (its first listing time kept), or drops it once nothing is left. */
export async function updateRetryEntry(
  folder: string,
  product: { productId: string; externalId: string | null },
  reason: string | null,
  now = new Date(),
): Promise<void> {
  const file = entryFile(folder, product.productId);
  if (reason === null) {
    const { store, key } = locate(file);
    await store.remove(key);
    return;
  }
  const earlier = await readStoredJson(file, retryEntrySchema).catch(() => undefined);
  const entry: RetryEntry = {
    productId: product.productId,
    externalId: product.externalId,
    reason,
    firstListedAt: earlier?.firstListedAt ?? now.toISOString(),
    lastListedAt: now.toISOString(),
  };
  await storeJson(file, entry);
}

/**
 * A run's note of the list its batches keep, written by the scan of a `sinceLastRun` run: the mark, and the products
 * on its list when the scan read it (only those need dropping once settled).
 */
export const retryNoteSchema = z.strictObject({
  markName: z.string().min(1),
  listed: z.array(z.string()),
});
export const RETRY_NOTE = 'to-retry.json';

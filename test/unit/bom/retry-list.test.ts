import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ProductRepairResult } from '../../../connectors/bom-repair/repair-schemas';
import {
  retryFolder,
  retryProductIds,
  unsettledReason,
  updateRetryEntry,
} from '../../../connectors/bom-repair/retry-list';

const result = (counts: Partial<ProductRepairResult>): ProductRepairResult => ({
  productId: 'sku_1',
  externalId: 'SKU-1',
  repaired: 0,
  wouldRepair: 0,
  ambiguous: 0,
  unmatched: 0,
  failed: 0,
  verified: null,
  headers: [],
  lines: [],
  ...counts,
});

describe('the sinceLastRun to-retry list', () => {
  it('keeps a product while its result leaves lines ambiguous, unmatched, failed or unverified', () => {
    expect(unsettledReason(null)).toBeNull();
    expect(unsettledReason(result({ repaired: 3, verified: true }))).toBeNull();
    expect(unsettledReason(result({ ambiguous: 2, failed: 1 }))).toBe('2 ambiguous, 1 failed');
    expect(unsettledReason(result({ problem: 'not in the catalogue' }))).toBe('not in the catalogue');
    expect(unsettledReason(result({ repaired: 1, verified: false }))).toBe('a repair did not verify');
  });

  it('one entry per product: kept with its first listing time, dropped once settled', async () => {
    const folder = retryFolder(mkdtempSync(path.join(tmpdir(), 'retry-list-')), 'nightly');
    const id = 'sku_01/odd id';
    await updateRetryEntry(folder, { productId: id, externalId: 'X' }, '2 ambiguous', new Date('2026-01-01'));
    await updateRetryEntry(folder, { productId: id, externalId: 'X' }, '1 ambiguous', new Date('2026-01-02'));
    expect(await retryProductIds(folder)).toEqual([id]);
    const file = path.join(folder, `${encodeURIComponent(id)}.json`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      reason: '1 ambiguous',
      firstListedAt: '2026-01-01T00:00:00.000Z',
      lastListedAt: '2026-01-02T00:00:00.000Z',
    });
    await updateRetryEntry(folder, { productId: id, externalId: 'X' }, null);
    expect(existsSync(file)).toBe(false);
    expect(await retryProductIds(folder)).toEqual([]);
  });
});

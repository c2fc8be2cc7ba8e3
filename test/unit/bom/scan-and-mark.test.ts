import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ForkSnapshotStore, snapshotSourceLines } from '../../../connectors/bom-repair/fork-snapshots';
import {
  CorruptBomMarkError,
  MARK_SAFETY_MS,
  LISTING_READS,
  nextBomMark,
  readBomMark,
  ScanReport,
  scanRepairCandidates,
  storeBomMark,
  trustedIncludedHeaders,
} from '../../../connectors/bom-repair/scan';
import type { Product, ProductListQuery, TraceabilityClient } from '../../../connectors/traceability';
import { line } from './fixtures';

const product = (bom?: unknown): Product =>
  ({
    id: 'sku_1',
    name: 'Tee M',
    styleId: 'style_1',
    variantId: 'variant_1',
    ...(bom === undefined ? {} : { bom }),
  }) as unknown as Product;
const header = (link?: Record<string, unknown>) => ({
  id: 'bomhdr_1',
  name: 'Tee BOM (Copy)',
  ...(link ? { link } : {}),
});

describe('include=bom is used only when it shows the link role', () => {
  it('trusts headers whose link carries a boolean isOwner', () => {
    const result = trustedIncludedHeaders(
      product([header({ styleId: 'sku_1', isOwner: true, isMainBom: true })]),
    );
    expect('headers' in result && result.headers.map((h) => h.link?.isOwner)).toEqual([true]);
    expect(trustedIncludedHeaders(product([]))).toEqual({ headers: [] });
  });

  it('does not trust a header without link.isOwner, or an answer without the include', () => {
    expect(trustedIncludedHeaders(product([header()]))).toEqual({
      problem: "the 'bom' include shows header bomhdr_1 without link.isOwner",
    });
    expect(trustedIncludedHeaders(product([header({ styleId: 'sku_1' })]))).toHaveProperty('problem');
    expect(trustedIncludedHeaders(product())).toEqual({
      problem: "the product list answered without the 'bom' include",
    });
    expect(trustedIncludedHeaders(product('nope'))).toHaveProperty('problem');
  });
});

describe('the sinceLastRun high-water mark', () => {
  it('starts at 0, never moves back, and keeps a safety margin before the scan start', async () => {
    const file = path.join(
      await mkdtemp(path.join(tmpdir(), 'bom-mark-')),
      'bom-repair',
      'high-water-mark-x.json',
    );
    expect(await readBomMark(file)).toBe(0);
    const start = Date.parse('2026-11-23T02:00:00Z');
    expect(nextBomMark(0, start)).toBe(start - MARK_SAFETY_MS);
    expect(nextBomMark(start, start - 60_000)).toBe(start);
    await storeBomMark(file, start);
    expect(await readBomMark(file)).toBe(start);
    await writeFile(file, '{"sinceMs": "yesterday"}');
    await expect(readBomMark(file)).rejects.toThrow(CorruptBomMarkError);
  });
});

describe('fork-time snapshots', () => {
  it('are kept per product and source header, and give the source lines without the written ones', async () => {
    const store = new ForkSnapshotStore(await mkdtemp(path.join(tmpdir(), 'bom-snap-')));
    const kept = line({ styleId: 'comp_button' });
    const written = line({ styleId: 'comp_label' });
    expect(await store.find('sku_1', 'bomhdr_src')).toBeNull();
    await store.save({
      productId: 'sku_1',
      sourceHeaderId: 'bomhdr_src',
      takenAt: '2026-11-23T00:00:00Z',
      writtenLineIds: [written.id],
      lines: [kept, written],
    });
    const snapshot = await store.find('sku_1', 'bomhdr_src');
    expect(snapshotSourceLines(snapshot!).map((l) => [l.id, l.styleId])).toEqual([[kept.id, 'comp_button']]);
    expect(await store.find('sku_2', 'bomhdr_src')).toBeNull();
  });
});

describe('a product listing that loses products between its pages', () => {
  const owning = (id: string): Product =>
    ({
      ...product([header({ styleId: id, isOwner: true })]),
      id,
    }) as Product;
  /** Two pages of the SKU listing whose total drops by one between them on every read (a product keeps leaving). */
  const shrinkingClient = (calls: ProductListQuery[]) =>
    ({
      products: {
        list: async (query: ProductListQuery) => {
          calls.push(query);
          if (query.level !== 'sku' || query.isArchived)
            return { items: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 0 } };
          const page = query.page ?? 1;
          return page === 1
            ? { items: [owning('sku_a')], pagination: { page, limit: 100, total: 101, totalPages: 2 } }
            : { items: [owning('sku_b')], pagination: { page, limit: 100, total: 100, totalPages: 1 } };
        },
      },
    }) as unknown as TraceabilityClient;

  it('is read again, each product looked at once, and reported when no read holds it', async () => {
    const calls: ProductListQuery[] = [];
    const report = new ScanReport();
    const found: string[] = [];
    for await (const candidate of scanRepairCandidates(shrinkingClient(calls), { kind: 'all' }, report))
      found.push(candidate.id);
    expect(found).toEqual(['sku_a', 'sku_b']);
    expect(calls.filter((q) => q.level === 'sku' && !q.isArchived)).toHaveLength(2 * LISTING_READS);
    expect(report.listingsMoved).toEqual([
      `GET /styles level=sku&isArchived=false: its total went 101 -> 100 between pages on each of ${LISTING_READS} reads`,
    ]);
  });
});

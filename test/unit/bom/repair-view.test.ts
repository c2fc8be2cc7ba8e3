import type { ListedProductResult } from '../../../connectors/bom-repair/listing';
import { bomRepairOutcomeDetails, type BomRepairView } from '../../../workflows/bom-repair-view';

const ambiguousProduct = (n: number): ListedProductResult => ({
  productId: `prd_${n}`,
  externalId: `SKU-${n}`,
  repaired: 1,
  wouldRepair: 0,
  ambiguous: 2,
  unmatched: 0,
  failed: 0,
  verified: true,
  headers: [],
  lines: [
    { headerId: `bomhdr_${n}`, lineId: `bom_line_${n}a`, outcome: 'repaired' },
    { headerId: `bomhdr_${n}`, lineId: `bom_line_${n}b`, outcome: 'ambiguous', reason: 'x'.repeat(1_000) },
    {
      headerId: `bomhdr_${n}`,
      lineId: `bom_line_${n}c`,
      outcome: 'ambiguous',
      reason: 'changed after the fork; run again with --accept-current-source to take it',
    },
  ],
});

const view = (products: ListedProductResult[], more: Partial<BomRepairView> = {}): BomRepairView => ({
  selector: 'all',
  dryRun: false,
  productsScanned: 40,
  candidates: 12,
  productsProcessed: 12,
  productsWithForks: products.length,
  productsFailed: 0,
  linesRepaired: products.length,
  linesWouldRepair: 0,
  linesAmbiguous: 2 * products.length,
  linesUnmatched: 0,
  linesFailed: 0,
  notFound: [],
  products,
  productsOmitted: 0,
  ...more,
});

describe('the BOM repair run details', () => {
  it('name the first five of each list, say how many more, and clip long reasons', () => {
    const products = Array.from({ length: 8 }, (_, i) => ambiguousProduct(i));
    const lines = bomRepairOutcomeDetails(view(products), 'done-with-problems').split('\n');
    expect(lines[0]).toBe(
      'BOM repair (all): done-with-problems: lines 8 repaired, 16 ambiguous, 0 unmatched, 0 failed; 8 products with forks of 40 scanned',
    );
    expect(lines).toContain("- … and 3 more products (the run's result lists them)");
    expect(lines).toContain("- … and 11 more left (the run's result lists them)");
    expect(lines.filter((l) => l.startsWith('- SKU-'))).toHaveLength(10);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(500);
    expect(lines.at(-1)).toMatch(
      /^Next: lines whose source changed after the fork: run again with --accept-current-source \(acceptCurrentSource in the input\)/,
    );
  });

  it('a run that left lines its batches did not list counts them among the more', () => {
    const details = bomRepairOutcomeDetails(
      view([ambiguousProduct(1)], { linesAmbiguous: 30 }),
      'done-with-problems',
    );
    expect(details).toContain("- … and 28 more left (the run's result lists them)");
  });

  it('a reason that says taking the source as it is now would not help does not offer it as the next step', () => {
    const product = ambiguousProduct(1);
    const moved = {
      ...product,
      lines: product.lines.map((l) => ({
        ...l,
        reason:
          'even taking the source as it stands now (--accept-current-source). Left alone: give these copies their components by hand',
      })),
    };
    expect(bomRepairOutcomeDetails(view([moved]), 'done-with-problems')).toMatch(
      /\nNext: give the lines left alone their components by hand/,
    );
  });

  it('a clean run says there is nothing to do; a dry run says how to write', () => {
    const clean = { ...ambiguousProduct(1), ambiguous: 0, lines: [ambiguousProduct(1).lines[0]!] };
    expect(bomRepairOutcomeDetails(view([clean], { linesAmbiguous: 0 }), 'done')).toBe(
      'BOM repair (all): done: lines 1 repaired, 0 ambiguous, 0 unmatched, 0 failed; 1 product with forks of 40 scanned\nRepaired:\n- SKU-1: 1 line repaired, verified\nNext: nothing to do.',
    );
    const dry = { ...clean, repaired: 0, wouldRepair: 1, verified: null };
    expect(
      bomRepairOutcomeDetails(
        view([dry], { dryRun: true, linesAmbiguous: 0, linesRepaired: 0, linesWouldRepair: 1 }),
        'dry-run-done',
      ),
    ).toMatch(
      /Would repair:\n- SKU-1: 1 to repair\nNext: run again without --dry-run to write the repairs\.$/,
    );
  });
});

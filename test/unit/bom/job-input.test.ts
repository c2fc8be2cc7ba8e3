import { parseRepairBomInput, selectorLabel } from '../../../connectors/bom-repair/job-input';
import { repairBomInputFromFlags, repairBomWorkflowId } from '../../../cli/commands/bom-repair';

describe('bomRepair input', () => {
  it('accepts exactly one selector', () => {
    expect(parseRepairBomInput({ products: ['PLM-TEE-001', 'PLM-TEE-001'] }).selector).toEqual({
      kind: 'products',
      products: ['PLM-TEE-001'],
    });
    expect(parseRepairBomInput({ updatedAfter: '2025-06-01T00:00:00Z', dryRun: true })).toMatchObject({
      selector: { kind: 'updatedAfter', updatedAfterUnixMs: Date.UTC(2025, 5, 1) },
      dryRun: true,
    });
    expect(parseRepairBomInput({ all: true }).selector).toEqual({ kind: 'all' });
  });

  it.each([
    [{}, 'exactly one of products, updatedAfter, all or sinceLastRun (got 0)'],
    [{ all: true, products: ['X'] }, 'got 2'],
    [{ updatedAfter: 'yesterday' }, "updatedAfter: 'yesterday' is not an ISO 8601 time"],
    [{ all: true, dryrun: true }, 'unknown key "dryrun" (did you mean "dryRun"?)'],
    [
      { products: [], batchSize: 500 },
      'products: got an empty list, expected a non-empty list; batchSize: got 500, expected at most 200',
    ],
    [{ products: [] }, 'products'],
    [{ all: true, dryrun: true }, 'dryrun'],
  ])('refuses %j with a message that names the problem', (input, message) => {
    expect(() => parseRepairBomInput(input)).toThrow(message);
  });

  it('labels the selector for workflow ids', () => {
    expect(selectorLabel({ kind: 'products', products: ['PLM-TEE-001'] })).toBe('products-PLM-TEE-001');
    expect(selectorLabel({ kind: 'products', products: ['a', 'b'] })).toBe('products-2');
    expect(selectorLabel({ kind: 'updatedAfter', updatedAfterUnixMs: Date.UTC(2025, 5, 1) })).toBe(
      'updated-after-2025-06-01T00-00-00-000Z',
    );
  });
});

describe('trace-sync bom-repair flags', () => {
  it('turns repeated --product into the products selector and names the workflow after it', () => {
    const input = repairBomInputFromFlags({ product: ['PLM-TEE-001'], dryRun: true, timeout: 60 });
    expect(input).toEqual({ products: ['PLM-TEE-001'], dryRun: true });
    expect(repairBomWorkflowId(input, new Date(Date.UTC(2025, 0, 31, 8, 15)))).toBe(
      'bom-repair-products-PLM-TEE-001-dry-run-2025-01-31T08-15-00-000Z',
    );
  });

  it('refuses --all with --product in the flags’ own words', () => {
    expect(() => repairBomInputFromFlags({ all: true, product: ['X'], timeout: 60 })).toThrow(
      '--product, --updated-after, --all or --since-last-run',
    );
  });
});

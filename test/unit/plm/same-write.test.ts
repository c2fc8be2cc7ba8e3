import { sameWrite } from '../../../connectors/plm-import/changed-since-approval';
import type { WriteStep } from '../../../connectors/plm-import/staged-run';

/**
 * An approved plan is compared with a fresh one before its writes go: a plan staged before the steps carried the codes
 * taken from a ring's freed product (`takesFreed`) must not have its swap held back for that alone.
 */
describe('an approved write and the fresh plan’s', () => {
  const taken = {
    giver: 'S',
    giverRow: 2,
    codeId: 'EAN_GTIN_13',
    codeValue: '4006381333931',
    column: 'EAN_GTIN_13',
  };
  const step: WriteStep = {
    action: 'update',
    externalId: 'M',
    level: 'sku',
    rowNumbers: [3],
    parentExternalId: 'C',
    parentColumn: 'parent',
    id: 'p-m',
    changedFields: ['codes'],
    body: { codes: [{ codeId: 'EAN_GTIN_13', codeValue: '4006381333931' }] },
    wave: 1,
    ring: 'S',
  };

  it('approved before takesFreed was staged: the same write', () => {
    expect(sameWrite(step, { ...step, takesFreed: [taken] })).toBe(true);
  });

  it('any other difference, or a different takesFreed, is a change', () => {
    expect(
      sameWrite({ ...step, takesFreed: [taken] }, { ...step, takesFreed: [{ ...taken, giver: 'L' }] }),
    ).toBe(false);
    expect(sameWrite(step, { ...step, takesFreed: [taken], changedFields: ['codes', 'name'] })).toBe(false);
    expect(sameWrite(undefined, step)).toBe(false);
  });
});

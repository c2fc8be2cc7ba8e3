import { chooseLevelsToList, ownCompanyOf, sheetKeys } from '../../../connectors/plm-import/catalogue-read';
import type { ProductDraft } from '../../../connectors/plm-import/draft';

const draft = (
  externalId: string,
  parentExternalId: string | null,
  level: ProductDraft['level'] = null,
): ProductDraft => ({
  externalId,
  level,
  parentExternalId,
  rowNumbers: [2],
  fields: {},
  origins: {},
  externalIdColumn: 'externalId',
  parentColumn: 'parentExternalId',
  referenceOnly: false,
});

describe('which catalogue reads planning spends', () => {
  it('lists every level when the sheet is large next to the catalogue (an unchanged 5,000-product re-import)', () => {
    expect(
      chooseLevelsToList(
        { style: 3, variant: 10, sku: 37 },
        { style: 263, variant: 789, sku: 3945, unknown: 0 },
      ),
    ).toEqual(['style', 'variant', 'sku']);
  });

  it('GETs each product when a few rows meet a large catalogue (a retry of 5 rejected SKUs)', () => {
    expect(
      chooseLevelsToList({ style: 40, variant: 120, sku: 600 }, { style: 0, variant: 1, sku: 5, unknown: 0 }),
    ).toEqual([]);
  });

  it('mixes: lists the small levels and GETs the SKUs of a big one', () => {
    expect(
      chooseLevelsToList(
        { style: 2, variant: 6, sku: 900 },
        { style: 30, variant: 90, sku: 200, unknown: 0 },
      ),
    ).toEqual(['style', 'variant']);
  });

  it('products of unknown level are only found for free when all three levels are listed', () => {
    expect(
      chooseLevelsToList({ style: 1, variant: 1, sku: 20 }, { style: 0, variant: 0, sku: 0, unknown: 30 }),
    ).toEqual(['style', 'variant', 'sku']);
    expect(
      chooseLevelsToList({ style: 1, variant: 1, sku: 40 }, { style: 0, variant: 0, sku: 0, unknown: 30 }),
    ).toEqual([]);
  });

  it('infers levels from the sheet and names parents outside it', () => {
    const keys = sheetKeys([
      draft('S', null),
      draft('S-V', 'S'),
      draft('S-V-K', 'S-V'),
      draft('X-K', 'X-V', 'sku'),
      draft('Y-?', 'Y'),
    ]);
    expect(Object.fromEntries(keys)).toEqual({
      S: 'style',
      'S-V': 'variant',
      'S-V-K': 'sku',
      'X-K': 'sku',
      'X-V': 'variant',
      'Y-?': null,
      Y: null,
    });
  });

  // Spec 01: `forCompanyId` is the "Owning company", and POST may carry it to "create on behalf of another company in
  // the network": such a product is listed to its creator but names the partner, so it cannot tell the key's company.
  it("tells the key's company from a listed product it made for itself, never from one made for a partner", () => {
    const forPartner = { id: 'style_1', forCompanyId: 'cmp_partner', createdByCompanyId: 'cmp_brand' };
    const byPartner = { id: 'style_2', forCompanyId: 'cmp_brand', createdByCompanyId: 'cmp_partner' };
    const own = { id: 'style_3', forCompanyId: 'cmp_brand', createdByCompanyId: 'cmp_brand' };
    expect(ownCompanyOf([forPartner, byPartner])).toBeUndefined();
    expect(ownCompanyOf([forPartner, byPartner, own])).toBe('cmp_brand');
    expect(
      ownCompanyOf([{ id: 'legacy', forCompanyId: 'cmp_brand', createdByCompanyId: null }]),
    ).toBeUndefined();
  });
});

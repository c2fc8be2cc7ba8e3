import {
  ancestorsNearestFirst,
  pickSourceHeader,
  sourceNameFor,
} from '../../../connectors/bom-repair/repair';

describe('sourceNameFor', () => {
  it('strips one " (Copy)" suffix', () => {
    expect(sourceNameFor('Tee BOM (Copy)')).toBe('Tee BOM');
    expect(sourceNameFor('Tee BOM (Copy) (Copy)')).toBe('Tee BOM (Copy)');
  });

  it('uses the name given at fork time when the operator maps it, and has none otherwise', () => {
    expect(sourceNameFor('Tee BOM for EU', { 'Tee BOM for EU': 'Tee BOM' })).toBe('Tee BOM');
    expect(sourceNameFor('Tee BOM for EU')).toBeNull();
  });
});

describe('ancestorsNearestFirst', () => {
  it('lists a SKU’s variant before its style, a variant’s style, and nothing for a style', () => {
    expect(ancestorsNearestFirst({ id: 'sku_1', variantId: 'variant_1', styleId: 'style_1' })).toEqual([
      'variant_1',
      'style_1',
    ]);
    expect(ancestorsNearestFirst({ id: 'variant_1', variantId: null, styleId: 'style_1' })).toEqual([
      'style_1',
    ]);
    expect(ancestorsNearestFirst({ id: 'style_1', variantId: null, styleId: null })).toEqual([]);
  });
});

describe('pickSourceHeader', () => {
  const tee = { id: 'bomhdr_tee', name: 'Tee BOM' };
  it('takes the nearest ancestor holding a header of exactly that name', async () => {
    const pick = await pickSourceHeader('Tee BOM', [
      { ancestorId: 'variant_1', headers: [{ id: 'bomhdr_other', name: 'Tee BOM v2' }] },
      { ancestorId: 'style_1', headers: [tee] },
    ]);
    expect(pick).toEqual({ kind: 'found', header: tee, ancestorId: 'style_1' });
  });

  it('refuses to choose between two headers of the same name', async () => {
    const pick = await pickSourceHeader('Tee BOM', [
      { ancestorId: 'style_1', headers: [tee, { id: 'bomhdr_tee2', name: 'Tee BOM' }] },
    ]);
    expect(pick).toMatchObject({ kind: 'ambiguous', headerIds: ['bomhdr_tee', 'bomhdr_tee2'] });
  });

  it('says where it looked when nothing has the name', async () => {
    const pick = await pickSourceHeader('Tee BOM', [
      { ancestorId: 'style_1', headers: [{ id: 'x', name: 'tee bom' }] },
    ]);
    expect(pick).toEqual({ kind: 'not_found', reason: "no BOM named 'Tee BOM' on style_1" });
  });

  it('never takes the fork itself', async () => {
    expect(
      (
        await pickSourceHeader(
          'Tee BOM',
          [{ ancestorId: 'style_1', headers: [tee] }],
          new Set(['bomhdr_tee']),
        )
      ).kind,
    ).toBe('not_found');
  });
});

import {
  ancestorsNearestFirst,
  pickSourceHeader,
  sourceNameFor,
} from '../../../connectors/bom-repair/source-header';

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

  it('takes a header every ancestor links (the SKU’s variant inherits it from the style) once, through the nearest', async () => {
    const pick = await pickSourceHeader('Tee BOM', [
      { ancestorId: 'variant_1', headers: [tee] },
      { ancestorId: 'style_1', headers: [tee] },
    ]);
    expect(pick).toEqual({ kind: 'found', header: tee, ancestorId: 'variant_1' });
  });

  // Spec 02, BOMs: a fork through an inherited link is a "Permanent detach; copy creates no child links, so the
  // product's SKUs keep the original". A variant's own header of that name may be such a fork, renamed back.
  it('refuses to choose between headers of that name on different ancestors, listing both', async () => {
    const variantFork = { id: 'bomhdr_variant_fork', name: 'Tee BOM' };
    const pick = await pickSourceHeader('Tee BOM', [
      { ancestorId: 'variant_1', headers: [variantFork] },
      { ancestorId: 'style_1', headers: [tee] },
    ]);
    expect(pick).toMatchObject({
      kind: 'ambiguous',
      headerIds: ['bomhdr_tee', 'bomhdr_variant_fork'],
      candidates: [
        { headerId: 'bomhdr_variant_fork', productId: 'variant_1' },
        { headerId: 'bomhdr_tee', productId: 'style_1' },
      ],
    });
    expect(pick.kind === 'ambiguous' && pick.reason).toContain('variant_1 (bomhdr_variant_fork)');
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

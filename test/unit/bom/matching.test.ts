import { matchCopiedLines } from '../../../connectors/bom-repair/lines';
import { copyOf, line } from './fixtures';

describe('matchCopiedLines', () => {
  const fabric = line({
    styleId: 'cmp_fabric',
    placementId: 'bomplc_body',
    quantity: 1.2,
    quantityUnit: 'METRE',
    weight: 0.15,
    weightUnit: 'KILOGRAM',
    countryOfOrigin: 'India',
    isMainComponent: true,
  });
  const button = line({
    styleId: 'cmp_button',
    placementId: 'bomplc_placket',
    quantity: 3,
    weight: 2,
    weightUnit: 'GRAM',
    countryOfOrigin: 'Portugal',
  });
  const label = line({
    styleId: 'cmp_label',
    placementId: 'bomplc_neck',
    quantity: 1,
    countryOfOrigin: 'Portugal',
  });

  it('gives each copied line the component and main flag of the source line with the same kept values', () => {
    const copies = [copyOf(fabric), copyOf(button), copyOf(label)];
    const matches = matchCopiedLines(copies, [label, button, fabric]);
    expect(matches).toEqual(
      expect.arrayContaining([
        {
          kind: 'match',
          lineId: copies[0]!.id,
          sourceLineId: fabric.id,
          component: { styleId: 'cmp_fabric', isMainComponent: true },
        },
        {
          kind: 'match',
          lineId: copies[1]!.id,
          sourceLineId: button.id,
          component: { styleId: 'cmp_button', isMainComponent: false },
        },
        {
          kind: 'match',
          lineId: copies[2]!.id,
          sourceLineId: label.id,
          component: { styleId: 'cmp_label', isMainComponent: false },
        },
      ]),
    );
    expect(matches).toHaveLength(3);
  });

  it('leaves lines that kept their component (the line written in the forking request) alone', () => {
    const edited = { ...copyOf(button), styleId: 'cmp_button', quantity: 4 };
    const matches = matchCopiedLines([copyOf(fabric), edited], [fabric, button]);
    expect(matches.map((m) => m.lineId)).not.toContain(edited.id);
    expect(matches).toHaveLength(1);
  });

  it('reports a copy whose values no source line has as unmatched, naming the values', () => {
    const changedSource = { ...button, quantity: 5 };
    const [match] = matchCopiedLines([copyOf(button)], [changedSource]);
    expect(match).toMatchObject({ kind: 'unmatched' });
    expect(match?.kind === 'unmatched' && match.reason).toContain(
      'placement bomplc_placket, quantity 3 PIECES, weight 2 GRAM, country Portugal',
    );
  });

  it('compares every kept field: a different country or weight unit does not match', () => {
    expect(matchCopiedLines([copyOf({ ...button, countryOfOrigin: 'Spain' })], [button])[0]?.kind).toBe(
      'unmatched',
    );
    expect(matchCopiedLines([copyOf({ ...button, weightUnit: 'KILOGRAM' })], [button])[0]?.kind).toBe(
      'unmatched',
    );
  });

  it('reports copies as ambiguous when fewer of them than source lines share values with different components, and never picks one', () => {
    const horn = line({ styleId: 'cmp_horn', placementId: 'bomplc_cuff', quantity: 2 });
    const corozo = line({ styleId: 'cmp_corozo', placementId: 'bomplc_cuff', quantity: 2 });
    // One of the two was the line written in the forking request: which one is not known.
    const matches = matchCopiedLines([copyOf(horn)], [horn, corozo]);
    expect(matches.map((m) => m.kind)).toEqual(['ambiguous']);
    expect(matches[0]).toMatchObject({ candidateSourceLineIds: [horn.id, corozo.id] });
    expect(matches[0]?.kind === 'ambiguous' && matches[0].reason).toContain('cmp_horn, cmp_corozo');
  });

  // Spec 02, "Copy fidelity caveat": "Clients re-read the copied lines and re-apply references." When as many
  // copies as source lines share one set of values, every one of those source lines was copied here: the set of
  // references to re-apply is fixed, and copies identical in every kept value cannot be told apart.
  it('repairs as many look-alike copies as source lines with those values, each source reference put back once', () => {
    const trim = { placementId: null, quantity: 1, quantityUnit: 'PIECES', countryOfOrigin: 'Portugal' };
    const hangtag = line({ ...trim, styleId: 'cmp_hangtag' });
    const care = line({ ...trim, styleId: 'cmp_care_label' });
    const button = line({ ...trim, styleId: 'cmp_button' });
    const copies = [copyOf(hangtag), copyOf(care), copyOf(button)];
    const matches = matchCopiedLines(copies, [button, hangtag, care]);
    expect(matches.map((m) => m.kind)).toEqual(['match', 'match', 'match']);
    const given = matches.map((m) => (m.kind === 'match' ? m.component.styleId : null));
    expect([...given].sort()).toEqual(['cmp_button', 'cmp_care_label', 'cmp_hangtag']);
    for (const m of matches) {
      const source = [hangtag, care, button].find((s) => m.kind === 'match' && s.id === m.sourceLineId);
      expect(m.kind === 'match' && m.component.styleId).toBe(source?.styleId);
    }
  });

  it('keeps equal counts ambiguous when one of those source lines has no component itself', () => {
    const trim = { placementId: null, quantity: 1, quantityUnit: 'PIECES' };
    const label = line({ ...trim, styleId: 'cmp_label' });
    const bare = line({ ...trim, styleId: null });
    const matches = matchCopiedLines([copyOf(label), copyOf(bare)], [label, bare]);
    expect(matches.map((m) => m.kind)).toEqual(['ambiguous', 'ambiguous']);
  });

  it('treats a different main flag on otherwise equal source lines as ambiguous', () => {
    const a = line({ styleId: 'cmp_x', placementId: 'bomplc_a', isMainComponent: true });
    const b = line({ styleId: 'cmp_x', placementId: 'bomplc_a', isMainComponent: false });
    expect(matchCopiedLines([copyOf(a)], [a, b])[0]?.kind).toBe('ambiguous');
  });

  it('repairs duplicates that carry the same component, pairing them deterministically', () => {
    const first = line({ styleId: 'cmp_snap', placementId: 'bomplc_pocket' });
    const second = line({ styleId: 'cmp_snap', placementId: 'bomplc_pocket' });
    const copies = [copyOf(second, 'bom_line_zz'), copyOf(first, 'bom_line_aa')];
    const run = () => matchCopiedLines(copies, [second, first]);
    expect(run()).toEqual([
      {
        kind: 'match',
        lineId: 'bom_line_aa',
        sourceLineId: first.id,
        component: { styleId: 'cmp_snap', isMainComponent: false },
      },
      {
        kind: 'match',
        lineId: 'bom_line_zz',
        sourceLineId: second.id,
        component: { styleId: 'cmp_snap', isMainComponent: false },
      },
    ]);
    expect(run()).toEqual(run());
  });

  it('is ambiguous when there are more copies than source lines with those values (one copy lost its source)', () => {
    const snap = line({ styleId: 'cmp_snap', placementId: 'bomplc_pocket' });
    const matches = matchCopiedLines([copyOf(snap), copyOf(snap)], [snap]);
    expect(matches.map((m) => m.kind)).toEqual(['ambiguous', 'ambiguous']);
  });

  it('does not take a reference from a source line that has none itself', () => {
    const broken = line({ styleId: null, placementId: 'bomplc_hem' });
    const [match] = matchCopiedLines([copyOf(broken)], [broken]);
    expect(match).toMatchObject({ kind: 'unmatched' });
    expect(match?.kind === 'unmatched' && match.reason).toContain('no component either');
  });
});

import { compositionOps, type CurrentHeader } from '../../../connectors/plm-import/composition';

const line = (id: string, rawMaterialId: string, percentage: number) => ({
  id,
  rawMaterialId,
  percentage,
  parentId: null,
  weights: null,
  weightUnit: null,
  countriesOfOrigin: ['IN'],
});
const owned: CurrentHeader[] = [
  { id: 'h1', name: 'Composition', lines: [line('l1', 'cotton', 95), line('l2', 'elastane', 5)] },
];
const desired = (lines: Array<[string, number]>, name = 'Composition') => [
  {
    name,
    lines: lines.map(([rawMaterialId, percentage]) => ({
      material: rawMaterialId,
      rawMaterialId,
      percentage,
    })),
  },
];

describe('compositionOps (spec 02: headers and lines, tree rule 1 "Sibling percentages at one tree level must sum to at most 100")', () => {
  it('an unchanged composition needs no write (percentages compared in hundredths)', () => {
    expect(
      compositionOps(
        desired([
          ['cotton', 95.001],
          ['elastane', 5],
        ]),
        owned,
      ),
    ).toEqual([]);
  });

  it('a change replaces only the lines that differ, lowering before raising, keeping what the line holds besides', () => {
    expect(
      compositionOps(
        desired([
          ['elastane', 10],
          ['cotton', 90],
        ]),
        owned,
      ),
    ).toEqual([
      { op: 'replaceLine', headerId: 'h1', line: { ...line('l1', 'cotton', 90) } },
      { op: 'replaceLine', headerId: 'h1', line: { ...line('l2', 'elastane', 10) } },
    ]);
  });

  it('a material that goes is deleted first, a new one added last', () => {
    expect(
      compositionOps(
        desired([
          ['cotton', 95],
          ['polyamide', 5],
        ]),
        owned,
      ),
    ).toEqual([
      { op: 'deleteLines', headerId: 'h1', lineIds: ['l2'] },
      { op: 'createLine', headerId: 'h1', line: { rawMaterialId: 'polyamide', percentage: 5 } },
    ]);
  });

  it('sections the product lacks get a header (the first is the main material); owned headers no longer named are deleted', () => {
    const sections = [
      { name: 'Shell', lines: [{ material: 'Polyamide', rawMaterialId: 'polyamide', percentage: 100 }] },
      { name: 'Lining', lines: [{ material: 'Polyester', rawMaterialId: 'polyester', percentage: 100 }] },
    ];
    expect(compositionOps(sections, owned)).toEqual([
      { op: 'deleteHeaders', headerIds: ['h1'] },
      {
        op: 'createHeader',
        name: 'Shell',
        isMainMaterial: true,
        lines: [{ rawMaterialId: 'polyamide', percentage: 100 }],
      },
      {
        op: 'createHeader',
        name: 'Lining',
        isMainMaterial: false,
        lines: [{ rawMaterialId: 'polyester', percentage: 100 }],
      },
    ]);
  });
});

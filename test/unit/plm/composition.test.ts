import {
  compositionOps,
  planCompositions,
  type CurrentHeader,
} from '../../../connectors/plm-import/composition';
import { keptCopiesWarning } from '../../../connectors/plm-import/finish';

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
  // Spec 02: "percentage | number": the API stores the number sent, so percentages compare exactly.
  it('an unchanged composition needs no write; a change below a hundredth is one (percentages compared exactly)', () => {
    expect(
      compositionOps(
        desired([
          ['cotton', 95],
          ['elastane', 5],
        ]),
        owned,
      ),
    ).toEqual([]);
    expect(
      compositionOps(
        desired([
          ['cotton', 94.999],
          ['elastane', 5],
        ]),
        owned,
      ),
    ).toEqual([{ op: 'replaceLine', headerId: 'h1', line: line('l1', 'cotton', 94.999) }]);
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

// Spec 02: GET /material-headers lists "compositions linked to a product (owned and inherited)"; through an inherited
// link POST /material-headers/delete gives "Link removed (detach)" and leaves the "Shared header untouched".
describe('compositions a child inherits (spec 02: "owned and inherited")', () => {
  const cotton = { id: 'hs', name: 'Composition', lines: [line('ls', 'cotton', 100)] };
  const check = (externalId: string, ancestors: string[], lines: Array<[string, number]>) => ({
    externalId,
    ancestors,
    desired: desired(lines),
    owned: [],
    inherited: [cotton],
  });

  it('a child whose sheet composition equals what it inherits writes nothing; one that differs creates its own (main) and then detaches the inherited link', () => {
    const [same, differs] = planCompositions([
      check('SKU-L', ['VAR', 'STYLE'], [['cotton', 100]]),
      check(
        'SKU-M',
        ['VAR', 'STYLE'],
        [
          ['cotton', 95],
          ['elastane', 5],
        ],
      ),
    ]);
    expect(same?.ops).toEqual([]);
    expect(differs?.ops).toEqual([
      {
        op: 'createHeader',
        name: 'Composition',
        isMainMaterial: true,
        lines: [
          { rawMaterialId: 'cotton', percentage: 95 },
          { rawMaterialId: 'elastane', percentage: 5 },
        ],
      },
      { op: 'detachInherited', headers: [{ id: 'hs', name: 'Composition' }] },
    ]);
  });

  it('a child compares with what it will inherit once its ancestors are written: an edit in place, or a header an ancestor creates (detached by owner and name)', () => {
    const style = { ...check('STYLE', [], [['polyester', 100]]), owned: [cotton], inherited: [] };
    const planned = planCompositions([
      style,
      check('SKU-S', ['VAR', 'STYLE'], [['polyester', 100]]),
      check('SKU-L', ['VAR', 'STYLE'], [['cotton', 100]]),
    ]);
    expect(planned.map((plan) => plan.ops.map((op) => op.op))).toEqual([
      ['deleteLines', 'createLine'],
      [],
      ['createHeader', 'detachInherited'],
    ]);
    const fresh = planCompositions([
      { ...check('NEW', [], [['cotton', 100]]), inherited: [] },
      { ...check('NEW-BLK-M', ['NEW-BLK', 'NEW'], [['wool', 100]]), inherited: [] },
      { ...check('NEW-BLK-L', ['NEW-BLK', 'NEW'], [['cotton', 100]]), inherited: [] },
    ]);
    expect(fresh[1]?.ops.at(-1)).toEqual({
      op: 'detachInherited',
      headers: [{ owner: 'NEW', name: 'Composition' }],
    });
    expect(fresh[2]?.ops).toEqual([]);
  });

  it('a child that owns a section and also inherits one of that name (two mains) keeps its own and detaches the inherited', () => {
    expect(
      compositionOps(
        desired([
          ['cotton', 95],
          ['elastane', 5],
        ]),
        owned,
        [
          {
            id: 'hs',
            owner: null,
            name: 'Composition',
            lines: [{ rawMaterialId: 'cotton', percentage: 100 }],
          },
        ],
      ),
    ).toEqual([{ op: 'detachInherited', headers: [{ id: 'hs', name: 'Composition' }] }]);
  });

  // Spec 02: a header created "on a variant, [is linked] to that variant's SKUs", while a detach through the variant is
  // "Link removed" for the variant alone: a SKU whose blank cell means the variant's composition detaches the style's
  // itself, and leaves a header of a name the sheet never gives (set on the platform) as it is.
  it("\"on a variant, to that variant's SKUs\": a blank SKU under a variant that gets its own composition keeps the variant's and detaches the style's, and only headers of the sheet's names", () => {
    const other = { id: 'ho', name: 'Other team', lines: [line('lo', 'wool', 100)] };
    const wool = desired([['wool', 100]]);
    const planned = planCompositions([
      { ...check('VAR', ['STYLE'], [['wool', 100]]), inherited: [cotton, other] },
      {
        ...check('SKU-M', ['VAR', 'STYLE'], [['wool', 100]]),
        desired: wool,
        scope: ['Composition'],
        inherited: [cotton, other],
      },
    ]);
    expect(planned.map((plan) => plan.ops.map((op) => op.op))).toEqual([
      ['createHeader', 'detachInherited'],
      ['detachInherited'],
    ]);
    expect(planned[1]?.ops).toEqual([
      { op: 'detachInherited', headers: [{ id: 'hs', name: 'Composition' }] },
    ]);
    expect(compositionOps(wool, [other], [], ['Composition'])).toEqual([
      {
        op: 'createHeader',
        name: 'Composition',
        isMainMaterial: true,
        lines: [{ rawMaterialId: 'wool', percentage: 100 }],
      },
    ]);
  });
});

// Spec 02, POST /material-lines/delete: "Deleting a line cascades one level only, so deep trees must be deleted
// bottom-up or grandchildren keep dangling `parentId` values."
it('a root line the sheet drops goes with the lines below it, deepest level first', () => {
  const tree: CurrentHeader[] = [
    {
      id: 'h1',
      name: 'Composition',
      lines: [
        line('l1', 'cotton', 95),
        line('l2', 'elastane', 5),
        { ...line('c1', 'organic', 60), parentId: 'l1' },
        { ...line('c2', 'conventional', 40), parentId: 'l1' },
        { ...line('g1', 'gots', 100), parentId: 'c1' },
      ],
    },
  ];
  expect(compositionOps(desired([['elastane', 5]]), tree)).toEqual([
    { op: 'deleteLines', headerId: 'h1', lineIds: ['g1'] },
    { op: 'deleteLines', headerId: 'h1', lineIds: ['c1', 'c2'] },
    { op: 'deleteLines', headerId: 'h1', lineIds: ['l1'] },
  ]);
});

// Spec 02: "There is no operation to re-attach": the plan's note on a product that keeps its own copy reaches the
// result's warnings as one bounded line, a count and the first three products.
describe('keptCopiesWarning', () => {
  it('counts every product and names at most three, each bounded', () => {
    const ids = ['SKU-1', 'SKU-2', 'X'.repeat(500), 'SKU-4', 'SKU-5'];
    const warning = keptCopiesWarning(ids, false);
    expect(warning).toMatch(
      /^5 products keep their own composition headers, edited to equal their parent rows'/,
    );
    expect(warning).toContain("'SKU-1', 'SKU-2', 'XXXX");
    expect(warning).toContain(' and 2 more; plan.json names each parent row');
    expect(warning).not.toContain('SKU-4');
    expect(warning.length).toBeLessThan(500);
  });

  it('says "would keep" in a dry run', () => {
    expect(keptCopiesWarning(['SKU-1'], true)).toMatch(
      /^1 product would keep its own composition header.*: 'SKU-1';/,
    );
  });
});

/**
 * Issue 15: the PLM import follows the spec's catalogue and material rules and reads real product exports. Every
 * test runs the real workflow on a Temporal dev server against the sandbox over HTTP; the spec sentence each one
 * holds the import to is quoted in its name or beside it.
 * This file: compositions (spec 02) as headers, lines and percentages; how they are linked to and inherited by
 * variants and SKUs is in plm-spec-rules-composition-links.test.ts. The shared setup is plm-rules-stack.ts.
 */
import { builtinProfile } from '../../connectors/plm-import/profiles/builtin';
import { family, plmRulesStack, toCsv } from './plm-rules-stack';

describe('PLM import follows the spec rules (issue 15)', () => {
  const {
    stack,
    nativeMapping,
    file,
    run,
    snapshot,
    writesSince,
    api,
    product,
    ownedCompositions,
    rejectsOf,
  } = plmRulesStack();

  describe('3. compositions', () => {
    // Spec 02: "A composition (or BOM) is stored once as a header and linked to products"; "Lines form a tree under a
    // header"; tree rule 1: "Sibling percentages at one tree level must sum to at most 100".
    it('"stored once as a header [...] Lines form a tree under a header": compositions are written as headers and lines, unchanged ones cost no write, a change replaces only what changed', async () => {
      const rows = [
        ...family('CMP1', { style: { composition: '95% Cotton, 5% Elastane' } }),
        ...family('CMP2', { style: { composition: 'Shell: 100% Polyamide; Lining: 100% Polyester' } }),
      ];
      const result = await run({ file: await file('cmp.csv', toCsv(rows)), mappingFile: nativeMapping() });
      expect(result.products).toMatchObject({ created: 6, rejected: 0 });
      expect(result.compositions).toEqual({ written: 2, unchanged: 0, rejected: 0 });
      const first = await ownedCompositions('CMP1');
      expect(
        first.map(({ name, lines }) => ({
          name,
          lines: lines.map(({ rawMaterialId, percentage }) => ({ rawMaterialId, percentage })),
        })),
      ).toEqual([
        {
          name: 'Composition',
          lines: [
            { rawMaterialId: 'rawmat_cotton', percentage: 95 },
            { rawMaterialId: 'rawmat_elastane', percentage: 5 },
          ],
        },
      ]);
      expect(
        (await ownedCompositions('CMP2'))
          .map(
            ({ name, lines }) =>
              `${name}: ${lines.map((line) => `${line.percentage} ${line.rawMaterialId}`).join(', ')}`,
          )
          .sort(),
      ).toEqual(['Lining: 100 rawmat_polyester', 'Shell: 100 rawmat_polyamide']);

      const before = snapshot();
      const again = await run({
        file: await file('cmp-again.csv', toCsv(rows)),
        mappingFile: nativeMapping(),
      });
      expect(writesSince(before)).toBe(0);
      expect(again.compositions).toEqual({ written: 0, unchanged: 2, rejected: 0 });

      const changedRows = rows.map((row) =>
        row.externalId === 'CMP1' ? { ...row, composition: '90% Cotton, 10% Elastane' } : row,
      );
      const third = snapshot();
      const changed = await run({
        file: await file('cmp-changed.csv', toCsv(changedRows)),
        mappingFile: nativeMapping(),
      });
      expect(changed.compositions).toEqual({ written: 1, unchanged: 1, rejected: 0 });
      expect(writesSince(third)).toBe(2); // the two lines' percentages, lowered one first
      const after = await ownedCompositions('CMP1');
      expect(after[0]?.id).toBe(first[0]?.id);
      expect(after[0]?.lines).toEqual([
        { id: first[0]?.lines[0]?.id, rawMaterialId: 'rawmat_cotton', percentage: 90 },
        { id: first[0]?.lines[1]?.id, rawMaterialId: 'rawmat_elastane', percentage: 10 },
      ]);
    });

    // Spec 02, tree rule 1: sibling percentages "must sum to at most 100 (not exactly 100; completeness is never
    // checked)": the API would not notice a line lost to two names sharing one raw material, so the row is refused.
    it('"completeness is never checked": two names that resolve to one raw material are refused for the row, naming both, and nothing is written or lost', async () => {
      const aliasMapping = await file(
        'native-alias.json',
        JSON.stringify({
          ...builtinProfile('native'),
          name: 'native-alias',
          rawMaterials: {
            Cotton: 'rawmat_cotton',
            Polyester: 'rawmat_polyester',
            'Recycled polyester': 'rawmat_polyester',
          },
        }),
      );
      const created = await run({
        file: await file(
          'alias.csv',
          toCsv(family('ALIAS1', { style: { composition: '50% Cotton, 50% Polyester' } })),
        ),
        mappingFile: aliasMapping,
      });
      expect(created.compositions).toEqual({ written: 1, unchanged: 0, rejected: 0 });
      const before = await ownedCompositions('ALIAS1');

      const rows = family('ALIAS1', {
        style: { composition: '50% Cotton, 30% Polyester, 20% Recycled polyester' },
      });
      for (const name of ['alias-again.csv', 'alias-third.csv']) {
        const writes = snapshot();
        const result = await run({ file: await file(name, toCsv(rows)), mappingFile: aliasMapping });
        expect(writesSince(writes)).toBe(0);
        expect(rejectsOf(result).find((reject) => reject.externalId === 'ALIAS1')).toMatchObject({
          code: 'bad_composition',
          message: expect.stringMatching(
            /column 'composition'.*'Polyester' and 'Recycled polyester' both resolve to raw material 'rawmat_polyester'/,
          ),
        });
        expect(await ownedCompositions('ALIAS1')).toEqual(before);
      }
    });

    // Spec 01, convention 4: sorting "uses `sort` [...] and `order` (`asc` or `desc`, default `desc`)"; spec 02, GET
    // /material-lines: `sort` "`createdAt` default". Newest first, a line created between two page reads shifts the
    // pages, and a line read twice must not look like a duplicate to delete.
    it('"order (`asc` or `desc`, default `desc`)": a line another writer adds while the plan pages through every material line shifts nothing; the same sheet re-run writes nothing and loses no line', async () => {
      const rows = ['A', 'B', 'C', 'D'].flatMap((x) =>
        family(`SHIFT${x}`, { style: { composition: '95% Cotton, 5% Elastane' } }),
      );
      await run({ file: await file('shift.csv', toCsv(rows)), mappingFile: nativeMapping() });
      const before = await Promise.all(['A', 'B', 'C', 'D'].map((x) => ownedCompositions(`SHIFT${x}`)));
      expect(before.flat().map((header) => header.lines.length)).toEqual([2, 2, 2, 2]);

      // Another team's composition, newer than ours: 92 lines put our 8 at positions 93-100, newest first.
      const other = await product('SHIFTA-BLK');
      const otherHeader = await api<{ id: string }>('/material-headers', {
        method: 'POST',
        body: JSON.stringify({ name: 'Other team', link: { styleId: other.id, isMainMaterial: false } }),
      });
      const line = (rawMaterialId: string) =>
        api('/material-lines', {
          method: 'POST',
          body: JSON.stringify({
            styleId: other.id,
            materialHeaderId: otherHeader.id,
            parentId: null,
            rawMaterialId,
            percentage: 0.5,
          }),
        });
      for (let index = 0; index < 92; index++) await line(`rawmat_other_${index}`);
      const materials = stack().apiClient.materials;
      const listLines = materials.listLines.bind(materials);
      let wrote = false;
      materials.listLines = async (query, options) => {
        const page = await listLines(query, options);
        if (!wrote && query?.materialHeaderId === undefined && query?.page === 1) {
          wrote = true; // between the plan's first and second page of GET /material-lines
          await line('rawmat_late');
        }
        return page;
      };
      try {
        const writes = snapshot();
        const again = await run({
          file: await file('shift-again.csv', toCsv(rows)),
          mappingFile: nativeMapping(),
        });
        expect(wrote).toBe(true);
        expect(again.compositions).toEqual({ written: 0, unchanged: 4, rejected: 0 });
        expect(writesSince(writes)).toBe(0);
      } finally {
        materials.listLines = listLines;
      }
      expect(await Promise.all(['A', 'B', 'C', 'D'].map((x) => ownedCompositions(`SHIFT${x}`)))).toEqual(
        before,
      );
    });

    // Spec 02, POST /material-lines/delete: "Deleting a line cascades one level only, so deep trees must be deleted
    // bottom-up or grandchildren keep dangling `parentId` values."
    it('"deep trees must be deleted bottom-up": a material the sheet drops takes the lines refined below it along, leaving no dangling parentId', async () => {
      const sheet = (composition: string) => toCsv(family('DEEP1', { style: { composition } }));
      await run({ file: await file('deep.csv', sheet('100% Cotton')), mappingFile: nativeMapping() });
      const [header] = await ownedCompositions('DEEP1');
      const { id: styleId } = await product('DEEP1');
      const add = (parentId: string, rawMaterialId: string, percentage: number) =>
        api<{ id: string }>('/material-lines', {
          method: 'POST',
          body: JSON.stringify({
            styleId,
            materialHeaderId: header?.id,
            parentId,
            rawMaterialId,
            percentage,
          }),
        });
      // Someone refines the tree on the platform: Cotton > 60% organic cotton > 100% GOTS-certified.
      const child = await add(header?.lines[0]?.id ?? '', 'rawmat_organic_cotton', 60);
      await add(child.id, 'rawmat_gots', 100);

      const result = await run({
        file: await file('deep-poly.csv', sheet('100% Polyester')),
        mappingFile: nativeMapping(),
      });
      expect(result.compositions).toEqual({ written: 1, unchanged: 0, rejected: 0 });
      const lines = await api<Array<{ id: string; rawMaterialId: string; parentId: string | null }>>(
        `/material-lines?materialHeaderId=${header?.id}&limit=100`,
      );
      expect(lines.map((line) => [line.rawMaterialId, line.parentId])).toEqual([['rawmat_polyester', null]]);
    });

    // Spec 02, POST /material-headers/delete (and the lines' delete, whose answer carries `errors` too): "per-id
    // failures go into `errors` without failing the request". The API is made to refuse one id here.
    it('"per-id failures go into `errors` without failing the request": a line the API did not delete rejects the composition, naming the id and the reason, instead of counting it as written', async () => {
      const sheet = (composition: string) => toCsv(family('DELERR1', { style: { composition } }));
      await run({
        file: await file('delerr.csv', sheet('95% Cotton, 5% Elastane')),
        mappingFile: nativeMapping(),
      });
      const [before] = await ownedCompositions('DELERR1');
      const elastane = before?.lines.find((line) => line.rawMaterialId === 'rawmat_elastane');
      const materials = stack().apiClient.materials;
      const deleteLines = materials.deleteLines.bind(materials);
      materials.deleteLines = async (input) => ({
        deletedLines: [],
        duplicatedHeaders: [],
        orphanedHeaders: [],
        errors: input.materialLineIds.map((id) => ({
          id,
          code: 'line_locked',
          message: `Line '${id}' is locked`,
        })),
      });
      try {
        const result = await run({
          file: await file('delerr-cotton.csv', sheet('100% Cotton')),
          mappingFile: nativeMapping(),
        });
        expect(result.compositions).toEqual({ written: 0, unchanged: 0, rejected: 1 });
        expect(rejectsOf(result).find((reject) => reject.externalId === 'DELERR1')).toMatchObject({
          code: 'line_locked',
          message: expect.stringContaining(`${elastane?.id} (line_locked: Line '${elastane?.id}' is locked)`),
        });
      } finally {
        materials.deleteLines = deleteLines;
      }
      expect((await ownedCompositions('DELERR1'))[0]?.lines).toEqual(before?.lines);
    });

    it('"Sibling percentages at one tree level must sum to at most 100" and an unknown material are row errors naming the cell', async () => {
      const rows = [
        ...family('CMPBAD1', { style: { composition: '60% Cotton, 50% Wool' } }),
        ...family('CMPBAD2', { style: { composition: '100% Kevlar' } }),
      ];
      const result = await run({
        file: await file('cmp-bad.csv', toCsv(rows)),
        mappingFile: nativeMapping(),
      });
      expect(result.products).toMatchObject({ created: 0 });
      const rejects = rejectsOf(result);
      expect(rejects.find((reject) => reject.externalId === 'CMPBAD1')).toMatchObject({
        code: 'bad_composition',
        message: expect.stringMatching(/column 'composition'.*add up to 110%, more than 100%/),
      });
      expect(rejects.find((reject) => reject.externalId === 'CMPBAD2')).toMatchObject({
        code: 'bad_composition',
        message: expect.stringMatching(/unknown material 'Kevlar'; valid names: 'Cotton', 'Elastane'/),
      });
    });
    // Spec 02, material line: "percentage | number | 0-100, share among siblings"; Limits: "percentage | 0 to 100". A 0%
    // line (a trace amount to declare) is within the range.
    it('"percentage | number | 0-100": a 0% line is imported and stored as 0, and a re-run writes nothing', async () => {
      const rows = family('ZERO1', { style: { composition: '100% Cotton, 0% Elastane' } });
      const result = await run({ file: await file('zero.csv', toCsv(rows)), mappingFile: nativeMapping() });
      expect(rejectsOf(result)).toEqual([]);
      expect(result.compositions).toEqual({ written: 1, unchanged: 0, rejected: 0 });
      expect((await ownedCompositions('ZERO1'))[0]?.lines.map((line) => line.percentage)).toEqual([100, 0]);

      const before = snapshot();
      const again = await run({
        file: await file('zero-again.csv', toCsv(rows)),
        mappingFile: nativeMapping(),
      });
      expect(again.compositions).toEqual({ written: 0, unchanged: 1, rejected: 0 });
      expect(writesSince(before)).toBe(0);
    });

    // Spec 02: "percentage | number" (no rounding stated): the API stores and returns the number sent, so the import
    // compares with it exactly: a change below a hundredth is written, and what was written reads back unchanged.
    it('"percentage | number | 0-100, share among siblings": 33.333% is stored as sent, a re-run writes nothing, and a change in the thousandths is written', async () => {
      const sheet = (composition: string) => toCsv(family('THIRD1', { style: { composition } }));
      const first = await run({
        file: await file('third.csv', sheet('33.333% Cotton, 33.333% Wool, 33.334% Polyester')),
        mappingFile: nativeMapping(),
      });
      expect(first.compositions).toEqual({ written: 1, unchanged: 0, rejected: 0 });
      const stored = async () =>
        (await ownedCompositions('THIRD1'))[0]?.lines.map(
          (line) => `${line.percentage} ${line.rawMaterialId}`,
        );
      expect(await stored()).toEqual([
        '33.333 rawmat_cotton',
        '33.334 rawmat_polyester',
        '33.333 rawmat_wool',
      ]);

      const before = snapshot();
      const again = await run({
        file: await file('third-again.csv', sheet('33.333% Cotton, 33.333% Wool, 33.334% Polyester')),
        mappingFile: nativeMapping(),
      });
      expect(again.compositions).toEqual({ written: 0, unchanged: 1, rejected: 0 });
      expect(writesSince(before)).toBe(0);

      const changed = snapshot();
      const moved = await run({
        file: await file('third-moved.csv', sheet('33.334% Cotton, 33.333% Wool, 33.333% Polyester')),
        mappingFile: nativeMapping(),
      });
      expect(moved.compositions).toEqual({ written: 1, unchanged: 0, rejected: 0 });
      expect(writesSince(changed)).toBe(2); // polyester lowered first, then cotton raised
      expect(await stored()).toEqual([
        '33.334 rawmat_cotton',
        '33.333 rawmat_polyester',
        '33.333 rawmat_wool',
      ]);
    });
  });
});

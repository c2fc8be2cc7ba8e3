/**
 * Issue 15: the PLM import follows the spec's catalogue and material rules and reads real product exports. Every
 * test runs the real workflow on a Temporal dev server against the sandbox over HTTP; the spec sentence each one
 * holds the import to is quoted in its name or beside it.
 * This file: compositions (spec 02) linked to and inherited by variants and SKUs, detached when a child differs;
 * headers, lines and percentages are in plm-spec-rules-compositions.test.ts. The shared setup is plm-rules-stack.ts.
 */
import { readFileSync } from 'node:fs';
import { family, plmRulesStack, toCsv, type Row } from './plm-rules-stack';

describe('PLM import follows the spec rules (issue 15)', () => {
  const {
    nativeMapping,
    file,
    run,
    snapshot,
    writesSince,
    ownedCompositions,
    linkedCompositions,
    settledLinks,
    sandboxConfig,
    api,
    product,
  } = plmRulesStack();

  describe('3. compositions', () => {
    // Spec 02: GET /material-headers lists "compositions linked to a product (owned and inherited)"; "`isMainMaterial`
    // is held per link, so each product designates its own main material independently"; through an inherited link
    // POST /material-headers/delete gives "Link removed (detach)" with the "Shared header untouched".
    it('"owned and inherited": a child equal to what it inherits writes nothing; one that differs gets its own composition, main, and the inherited link is detached with the shared header untouched; a re-run writes nothing', async () => {
      const rows: Row[] = [
        ...family('INHC', {
          style: { composition: '100% Cotton' },
          sku: { composition: '95% Cotton, 5% Elastane' },
        }),
        {
          externalId: 'INHC-BLK-L',
          parentExternalId: 'INHC-BLK',
          level: 'sku',
          name: 'INHC black L',
          dimension: 'L',
          PLM_ID: 'INHC-BLK-L',
          composition: '100% Cotton',
        },
      ];
      let shared: { id: string } | undefined;
      await sandboxConfig({ childLinkDelayMs: 300 }); // links appear late, as on the platform
      try {
        const result = await run({ file: await file('inhc.csv', toCsv(rows)), mappingFile: nativeMapping() });
        expect(result.products).toMatchObject({ created: 4, rejected: 0 });
        expect(result.compositions).toEqual({ written: 2, unchanged: 1, rejected: 0 });
        [shared] = await ownedCompositions('INHC');
        const sharedLines = ['100 rawmat_cotton'];
        expect(await settledLinks('INHC-BLK-L', 1)).toEqual([
          { id: shared?.id, name: 'Composition', isOwner: false, isMainMaterial: true, lines: sharedLines },
        ]);
        await new Promise((resolve) => setTimeout(resolve, 600)); // no late link may reappear on the SKU that differs
        expect(await linkedCompositions('INHC-BLK-M')).toEqual([
          {
            id: expect.not.stringMatching(shared?.id ?? '-'),
            name: 'Composition',
            isOwner: true,
            isMainMaterial: true,
            lines: ['5 rawmat_elastane', '95 rawmat_cotton'],
          },
        ]);
        expect(await linkedCompositions('INHC')).toEqual([
          { id: shared?.id, name: 'Composition', isOwner: true, isMainMaterial: true, lines: sharedLines },
        ]);
        expect((await linkedCompositions('INHC-BLK')).map((header) => header.id)).toEqual([shared?.id]);

        const before = snapshot();
        const again = await run({
          file: await file('inhc-again.csv', toCsv(rows)),
          mappingFile: nativeMapping(),
        });
        expect(again.compositions).toEqual({ written: 0, unchanged: 3, rejected: 0 });
        expect(writesSince(before)).toBe(0);
      } finally {
        await sandboxConfig({ childLinkDelayMs: 0 });
      }

      // Later: the style's composition changes (edited in place, every inheriting child sees it), L now differs from
      // it (an existing inherited link to detach), and a new SKU equal to the style's new composition keeps inheriting.
      const later: Row[] = [
        ...rows.map((row) =>
          row.externalId === 'INHC'
            ? { ...row, composition: '100% Polyester' }
            : row.externalId === 'INHC-BLK-L'
              ? { ...row, composition: '90% Cotton, 10% Elastane' }
              : row,
        ),
        {
          externalId: 'INHC-BLK-S',
          parentExternalId: 'INHC-BLK',
          level: 'sku',
          name: 'INHC black S',
          dimension: 'S',
          PLM_ID: 'INHC-BLK-S',
          composition: '100% Polyester',
        },
      ];
      const changed = await run({
        file: await file('inhc-later.csv', toCsv(later)),
        mappingFile: nativeMapping(),
      });
      expect(changed.compositions).toEqual({ written: 2, unchanged: 2, rejected: 0 });
      const polyester = ['100 rawmat_polyester'];
      expect(await settledLinks('INHC-BLK-S', 1)).toEqual([
        { id: shared?.id, name: 'Composition', isOwner: false, isMainMaterial: true, lines: polyester },
      ]);
      expect(await linkedCompositions('INHC-BLK-L')).toEqual([
        {
          id: expect.not.stringMatching(shared?.id ?? '-'),
          name: 'Composition',
          isOwner: true,
          isMainMaterial: true,
          lines: ['10 rawmat_elastane', '90 rawmat_cotton'],
        },
      ]);
      expect(await linkedCompositions('INHC')).toEqual([
        { id: shared?.id, name: 'Composition', isOwner: true, isMainMaterial: true, lines: polyester },
      ]);
      const third = snapshot();
      const quiet = await run({
        file: await file('inhc-later-again.csv', toCsv(later)),
        mappingFile: nativeMapping(),
      });
      expect(quiet.compositions).toEqual({ written: 0, unchanged: 4, rejected: 0 });
      expect(writesSince(third)).toBe(0);
    });

    // Spec 02: "When a header is created on a style, the same header is linked to every variant and SKU below it; on a
    // variant, to that variant's SKUs"; through an inherited link POST /material-headers/delete gives "Link removed
    // (detach)", "Shared header untouched" (only that product's link: unlike a BOM detach, not its descendants'). So a
    // variant that gets its own composition and detaches the style's leaves its SKUs holding both unless each SKU
    // detaches the style's too. A blank composition cell on a child means its nearest parent row's composition.
    it('"on a variant, to that variant\'s SKUs" + "Link removed (detach)": a variant given its own composition leaves its blank SKUs with exactly that one, main; a re-run writes nothing', async () => {
      const sizeL: Row = {
        externalId: 'VOWN-BLK-L',
        parentExternalId: 'VOWN-BLK',
        level: 'sku',
        name: 'VOWN black L',
        dimension: 'L',
        PLM_ID: 'VOWN-BLK-L',
      };
      const sheet = (variant: string | undefined): Row[] => [
        ...family('VOWN', { style: { composition: '100% Cotton' }, variant: { composition: variant } }),
        sizeL,
      ];
      await sandboxConfig({ childLinkDelayMs: 300 }); // links appear late, as on the platform
      try {
        await run({ file: await file('vown.csv', toCsv(sheet(undefined))), mappingFile: nativeMapping() });
        const [styleHeader] = await ownedCompositions('VOWN');
        expect((await settledLinks('VOWN-BLK-L', 1)).map((header) => header.id)).toEqual([styleHeader?.id]);

        const writes = snapshot();
        const result = await run({
          file: await file('vown-variant.csv', toCsv(sheet('95% Cotton, 5% Elastane'))),
          mappingFile: nativeMapping(),
        });
        // The variant: its header, two lines, the style's detached; each SKU: the style's detached (one call each).
        expect(writesSince(writes)).toBe(6);
        expect(result.compositions).toEqual({ written: 3, unchanged: 1, rejected: 0 });
        await new Promise((resolve) => setTimeout(resolve, 900)); // every late link has landed
        const [variantHeader] = await ownedCompositions('VOWN-BLK');
        expect(variantHeader?.id).not.toBe(styleHeader?.id);
        const own = ['5 rawmat_elastane', '95 rawmat_cotton'];
        expect(await linkedCompositions('VOWN-BLK')).toEqual([
          { id: variantHeader?.id, name: 'Composition', isOwner: true, isMainMaterial: true, lines: own },
        ]);
        for (const sku of ['VOWN-BLK-M', 'VOWN-BLK-L'])
          expect(await linkedCompositions(sku)).toEqual([
            { id: variantHeader?.id, name: 'Composition', isOwner: false, isMainMaterial: true, lines: own },
          ]);
        expect(await linkedCompositions('VOWN')).toEqual([
          {
            id: styleHeader?.id,
            name: 'Composition',
            isOwner: true,
            isMainMaterial: true,
            lines: ['100 rawmat_cotton'],
          },
        ]);

        const before = snapshot();
        const again = await run({
          file: await file('vown-variant-again.csv', toCsv(sheet('95% Cotton, 5% Elastane'))),
          mappingFile: nativeMapping(),
        });
        expect(writesSince(before)).toBe(0);
        expect(again.compositions).toMatchObject({ written: 0, rejected: 0 });

        // Spec 02: "There is no operation to re-attach". The variant's cell blank again (then the style's exact
        // composition): it keeps its own header, edited in place to the style's (no fork, no new header), its SKUs go
        // on inheriting that header, the plan and the result's warnings (what --wait, watch and the Web UI show) say
        // so once, and a re-run writes nothing.
        const keepsCopy =
          /^1 product keeps its own composition header, edited to equal its parent row's.*"There is no operation to re-attach".*: 'VOWN-BLK'/;
        const dry = await run({
          file: await file('vown-blank-dry.csv', toCsv(sheet(undefined))),
          mappingFile: nativeMapping(),
          dryRun: true,
        });
        expect(dry.warnings).toEqual([
          expect.stringMatching(/^1 product would keep its own composition header, .*: 'VOWN-BLK'/),
        ]);
        const back = snapshot();
        const blankAgain = await run({
          file: await file('vown-blank.csv', toCsv(sheet(undefined))),
          mappingFile: nativeMapping(),
        });
        expect(writesSince(back)).toBe(2); // elastane deleted, cotton raised to 100
        expect(blankAgain.compositions).toEqual({ written: 1, unchanged: 1, rejected: 0 });
        expect(blankAgain.warnings).toEqual([expect.stringMatching(keepsCopy)]);
        const cotton = ['100 rawmat_cotton'];
        expect(await linkedCompositions('VOWN-BLK')).toEqual([
          { id: variantHeader?.id, name: 'Composition', isOwner: true, isMainMaterial: true, lines: cotton },
        ]);
        for (const sku of ['VOWN-BLK-M', 'VOWN-BLK-L'])
          expect(await linkedCompositions(sku)).toEqual([
            {
              id: variantHeader?.id,
              name: 'Composition',
              isOwner: false,
              isMainMaterial: true,
              lines: cotton,
            },
          ]);
        const plan = JSON.parse(readFileSync(blankAgain.planFile, 'utf8')) as {
          products: Array<{ externalId: string; action: string; note?: string }>;
        };
        expect(plan.products.filter((entry) => entry.note !== undefined)).toEqual([
          {
            externalId: 'VOWN-BLK',
            level: 'variant',
            action: 'composition',
            rows: [3],
            ops: ['deleteLines', 'replaceLine'],
            note: expect.stringContaining('There is no operation to re-attach'),
          },
        ]);
        for (const [name, variant] of [
          ['vown-blank-again.csv', undefined],
          ['vown-same.csv', '100% Cotton'],
        ] as const) {
          const quiet = snapshot();
          const rerun = await run({
            file: await file(name, toCsv(sheet(variant))),
            mappingFile: nativeMapping(),
          });
          expect(writesSince(quiet)).toBe(0);
          expect(rerun.compositions).toMatchObject({ written: 0, rejected: 0 });
          expect(readFileSync(rerun.planFile, 'utf8')).not.toContain('re-attach');
          expect(rerun.warnings.join('\n')).not.toContain('re-attach');
        }
        expect((await ownedCompositions('VOWN-BLK')).map((header) => header.id)).toEqual([variantHeader?.id]);
      } finally {
        await sandboxConfig({ childLinkDelayMs: 0 });
      }
    });

    // Spec 02: "on a variant, to that variant's SKUs" (the variant's new header) while a detach through the variant is
    // "Link removed (detach)" for the variant alone, "Shared header untouched": SKUs in the catalogue but not on the
    // sheet keep their link to the style's header unless each detaches it (POST /material-headers/delete through the
    // SKU), so without that each would hold two main compositions.
    it('"Link removed (detach)" for the variant alone: a variant row given its own composition leaves its SKUs that are not on the sheet with exactly that one, main; counted in the plan and the result; a re-run writes nothing', async () => {
      const sizeL: Row = {
        externalId: 'VOFF-BLK-L',
        parentExternalId: 'VOFF-BLK',
        level: 'sku',
        name: 'VOFF black L',
        dimension: 'L',
        PLM_ID: 'VOFF-BLK-L',
      };
      // XL once differed: it owns its composition and inherits nothing; the variant's new header reaches it all the same.
      const sizeXL: Row = {
        ...sizeL,
        externalId: 'VOFF-BLK-XL',
        name: 'VOFF black XL',
        dimension: 'XL',
        PLM_ID: 'VOFF-BLK-XL',
        composition: '100% Polyester',
      };
      const rows = [...family('VOFF', { style: { composition: '100% Cotton' } }), sizeL, sizeXL];
      const variantOnly = (composition: string): Row[] => [
        { ...(rows.find((row) => row.externalId === 'VOFF-BLK') as Row), composition },
      ];
      await sandboxConfig({ childLinkDelayMs: 300 });
      try {
        await run({ file: await file('voff.csv', toCsv(rows)), mappingFile: nativeMapping() });
        const [styleHeader] = await ownedCompositions('VOFF');
        expect((await settledLinks('VOFF-BLK-L', 1)).map((header) => header.id)).toEqual([styleHeader?.id]);

        const writes = snapshot();
        const result = await run({
          file: await file('voff-variant.csv', toCsv(variantOnly('95% Cotton, 5% Elastane'))),
          mappingFile: nativeMapping(),
        });
        // The variant: its header, two lines, the style's detached; each SKU off the sheet: the style's detached, or
        // (XL, which owns its own) the variant's new one, so that it stays as it was.
        expect(writesSince(writes)).toBe(7);
        expect(result.compositions).toEqual({ written: 4, unchanged: 0, rejected: 0 });
        const plan = JSON.parse(readFileSync(result.planFile, 'utf8')) as {
          counts: { compositions: number };
          products: Array<{ externalId: string; action: string; rows: number[]; ops?: string[] }>;
        };
        expect(plan.counts.compositions).toBe(4);
        expect(
          plan.products
            .filter((entry) => entry.action === 'composition')
            .map((entry) => [entry.externalId, entry.rows, entry.ops])
            .sort(),
        ).toEqual([
          ['VOFF-BLK', [2], ['createHeader', 'detachInherited']],
          ['VOFF-BLK-L', [2], ['detachInherited']],
          ['VOFF-BLK-M', [2], ['detachInherited']],
          ['VOFF-BLK-XL', [2], ['detachInherited']],
        ]);
        await new Promise((resolve) => setTimeout(resolve, 900)); // every late link has landed
        const [variantHeader] = await ownedCompositions('VOFF-BLK');
        const own = ['5 rawmat_elastane', '95 rawmat_cotton'];
        for (const sku of ['VOFF-BLK-M', 'VOFF-BLK-L'])
          expect(await linkedCompositions(sku)).toEqual([
            { id: variantHeader?.id, name: 'Composition', isOwner: false, isMainMaterial: true, lines: own },
          ]);
        expect((await linkedCompositions('VOFF')).map((header) => header.id)).toEqual([styleHeader?.id]);
        expect(await linkedCompositions('VOFF-BLK-XL')).toEqual([
          {
            id: expect.not.stringMatching(`${styleHeader?.id ?? '-'}|${variantHeader?.id ?? '-'}`),
            name: 'Composition',
            isOwner: true,
            isMainMaterial: true,
            lines: ['100 rawmat_polyester'],
          },
        ]);

        const before = snapshot();
        const again = await run({
          file: await file('voff-variant-again.csv', toCsv(variantOnly('95% Cotton, 5% Elastane'))),
          mappingFile: nativeMapping(),
        });
        expect(writesSince(before)).toBe(0);
        expect(again.compositions).toEqual({ written: 0, unchanged: 1, rejected: 0 });
      } finally {
        await sandboxConfig({ childLinkDelayMs: 0 });
      }
    });

    // Spec 01: "Archived products are excluded from default lists" (`isArchived` "true returns only archived"), yet
    // "Archiving is reversible and keeps the record", and unarchiving gives the product back as it was. Spec 02: a
    // header created on a variant is linked "to that variant's SKUs", archived ones too. An archived SKU off the sheet
    // that kept its link to the style's composition would come back from the archive with two main compositions.
    it('"Archived products are excluded from default lists" + "keeps the record": an archived SKU off the sheet is detached like a live one and, unarchived, holds only its variant\'s composition; one variant and several alike; a re-run writes nothing', async () => {
      const families = ['ARCA', 'ARCB', 'ARCC'];
      const sizeL = (prefix: string): Row => ({
        externalId: `${prefix}-BLK-L`,
        parentExternalId: `${prefix}-BLK`,
        level: 'sku',
        name: `${prefix} black L`,
        dimension: 'L',
        PLM_ID: `${prefix}-BLK-L`,
      });
      const rows = families.flatMap((prefix) => [
        ...family(prefix, { style: { composition: '100% Cotton' } }),
        sizeL(prefix),
      ]);
      const variantRows = (prefixes: readonly string[]): Row[] =>
        prefixes.map((prefix) => ({
          ...(rows.find((row) => row.externalId === `${prefix}-BLK`) as Row),
          composition: '95% Cotton, 5% Elastane',
        }));
      await run({ file: await file('arcl.csv', toCsv(rows)), mappingFile: nativeMapping() });
      const archived = await Promise.all(
        families.map(async (prefix) => {
          await settledLinks(`${prefix}-BLK-L`, 1);
          return (await product(`${prefix}-BLK-L`)).id;
        }),
      );
      await api('/styles/archive', { method: 'POST', body: JSON.stringify({ ids: archived }) });
      expect(await product('ARCA-BLK-L')).toMatchObject({ isArchived: true });

      const own = ['5 rawmat_elastane', '95 rawmat_cotton'];
      const holdsOnlyVariants = async (prefix: string) => {
        const [variantHeader] = await ownedCompositions(`${prefix}-BLK`);
        for (const sku of [`${prefix}-BLK-M`, `${prefix}-BLK-L`])
          expect(await linkedCompositions(sku)).toEqual([
            { id: variantHeader?.id, name: 'Composition', isOwner: false, isMainMaterial: true, lines: own },
          ]);
      };

      // One variant: its header, two lines and the style's detached; each SKU, archived L too, the style's detached.
      const one = snapshot();
      const single = await run({
        file: await file('arcl-one.csv', toCsv(variantRows(['ARCA']))),
        mappingFile: nativeMapping(),
      });
      expect(writesSince(one)).toBe(6);
      expect(single.compositions).toEqual({ written: 3, unchanged: 0, rejected: 0 });
      await new Promise((resolve) => setTimeout(resolve, 200)); // every late link has landed
      await holdsOnlyVariants('ARCA');

      // Two variants at once.
      const two = snapshot();
      const both = await run({
        file: await file('arcl-two.csv', toCsv(variantRows(['ARCB', 'ARCC']))),
        mappingFile: nativeMapping(),
      });
      expect(writesSince(two)).toBe(12);
      expect(both.compositions).toEqual({ written: 6, unchanged: 0, rejected: 0 });
      for (const prefix of ['ARCB', 'ARCC']) await holdsOnlyVariants(prefix);

      await api('/styles/unarchive', { method: 'POST', body: JSON.stringify({ ids: [archived[0]] }) });
      expect(await product('ARCA-BLK-L')).toMatchObject({ isArchived: false });
      await holdsOnlyVariants('ARCA');

      const again = snapshot();
      await run({
        file: await file('arcl-again.csv', toCsv(variantRows(['ARCA', 'ARCB', 'ARCC']))),
        mappingFile: nativeMapping(),
      });
      expect(writesSince(again)).toBe(0);
    });

    // The same in one run that creates the whole family: the style's header reaches the new SKUs twice over (from the
    // header and from the new SKU inheriting its parent's links), the variant's once.
    it('"linked to every variant and SKU below it": a new family whose variant differs from its style ends with each blank SKU holding only the variant\'s composition', async () => {
      const rows: Row[] = family('VNEW', {
        style: { composition: '100% Cotton' },
        variant: { composition: '100% Polyester' },
      });
      await sandboxConfig({ childLinkDelayMs: 300 });
      try {
        const result = await run({ file: await file('vnew.csv', toCsv(rows)), mappingFile: nativeMapping() });
        expect(result.products).toMatchObject({ created: 3, rejected: 0 });
        await new Promise((resolve) => setTimeout(resolve, 900));
        const [variantHeader] = await ownedCompositions('VNEW-BLK');
        expect(await linkedCompositions('VNEW-BLK-M')).toEqual([
          {
            id: variantHeader?.id,
            name: 'Composition',
            isOwner: false,
            isMainMaterial: true,
            lines: ['100 rawmat_polyester'],
          },
        ]);
        const before = snapshot();
        await run({ file: await file('vnew-again.csv', toCsv(rows)), mappingFile: nativeMapping() });
        expect(writesSince(before)).toBe(0);
      } finally {
        await sandboxConfig({ childLinkDelayMs: 0 });
      }
    });
  });
});

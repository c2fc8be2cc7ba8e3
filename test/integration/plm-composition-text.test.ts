/**
 * The PLM import reads composition text as product exports write it. Every test runs the real workflow on a Temporal
 * dev server against the sandbox over HTTP; the spec sentence each one holds the import to is quoted in its name or
 * beside it. The shared setup is plm-rules-stack.ts.
 */
import { family, plmRulesStack, toCsv } from './plm-rules-stack';

describe('PLM import reads composition text', () => {
  const {
    stack,
    nativeMapping,
    file,
    run,
    snapshot,
    writesSince,
    ownedCompositions,
    linkedCompositions,
    rejectsOf,
  } = plmRulesStack();

  const shown = async (externalId: string) =>
    (await ownedCompositions(externalId))
      .map(
        ({ name, lines }) =>
          `${name}: ${lines.map((line) => `${line.percentage} ${line.rawMaterialId}`).join(', ')}`,
      )
      .sort();

  // Spec 02, material line: "percentage | number | 0-100, share among siblings"; "A composition (or BOM) is stored once
  // as a header". "95% Cotton 5% Elastane" is two sibling lines, and "Shell: ..., Lining: ..." two headers.
  it('"share among siblings" and "stored once as a header": "95% Cotton 5% Elastane" is two lines, "Shell: 100% Polyester, Lining: 100% Cotton" two headers; a label run into a part is a row error naming the column and why; a re-run writes nothing', async () => {
    const rows = [
      ...family('TXT1', { style: { composition: '95% Cotton 5% Elastane' } }),
      ...family('TXT2', { style: { composition: 'Cotton 60% Polyester 40%' } }),
      ...family('TXT3', { style: { composition: 'Shell: 100% Polyester, Lining: 100% Cotton' } }),
      ...family('TXT4', { style: { composition: 'Shell: 100% Polyester Lining: 100% Cotton' } }),
    ];
    const result = await run({ file: await file('txt.csv', toCsv(rows)), mappingFile: nativeMapping() });
    expect(await shown('TXT1')).toEqual(['Composition: 95 rawmat_cotton, 5 rawmat_elastane']);
    expect(await shown('TXT2')).toEqual(['Composition: 60 rawmat_cotton, 40 rawmat_polyester']);
    expect(await shown('TXT3')).toEqual(['Lining: 100 rawmat_cotton', 'Shell: 100 rawmat_polyester']);
    const rejects = rejectsOf(result);
    expect(
      rejects.filter((reject) => reject.code === 'bad_composition').map((reject) => reject.externalId),
    ).toEqual(['TXT4']); // TXT4's variant and SKU follow it as `invalid_parent`
    expect(rejects.find((reject) => reject.externalId === 'TXT4')?.message).toMatch(
      /column 'composition'.*'Polyester Lining:' is not a material: a label ends with ':' and starts a part, after ';' or ','/,
    );
    expect(result.compositions).toEqual({ written: 3, unchanged: 0, rejected: 0 });

    const before = snapshot();
    const again = await run({
      file: await file('txt-again.csv', toCsv(rows.filter((row) => !row.externalId.startsWith('TXT4')))),
      mappingFile: nativeMapping(),
    });
    expect(writesSince(before)).toBe(0);
    expect(again.compositions).toEqual({ written: 0, unchanged: 3, rejected: 0 });
  });

  // Spec 01, GET /styles: `include` value `material` is "material composition headers", shown without `link`; spec 02
  // shows `link.isOwner` only on GET /material-headers, which lists "compositions linked to a product (owned and
  // inherited)". An include without the role must not make a product's own composition look inherited.
  it('`include=material` gives "material composition headers": where they lack `link.isOwner` the roles come from GET /material-headers ("owned and inherited"), so a changed composition is edited in place, not doubled; with `link` no header is read', async () => {
    const sheet = (prefix: string, composition: string) => toCsv(family(prefix, { style: { composition } }));
    const setShape = (materialIncludeShape: 'full' | 'bare') =>
      fetch(`${new URL(stack().sandbox.baseUrl).origin}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ materialIncludeShape }),
      });
    const headerReads = () => stack().apiClient.stats().byEndpoint['GET /material-headers'] ?? 0;
    for (const prefix of ['FULLINC', 'BAREINC'])
      await run({
        file: await file(`${prefix}.csv`, sheet(prefix, '100% Cotton')),
        mappingFile: nativeMapping(),
      });
    const [fullBefore] = await ownedCompositions('FULLINC');
    const [bareBefore] = await ownedCompositions('BAREINC');
    const changedTo = (id: string | undefined) => [
      {
        id,
        name: 'Composition',
        isOwner: true,
        isMainMaterial: true,
        lines: ['5 rawmat_elastane', '95 rawmat_cotton'],
      },
    ];

    let at = headerReads();
    const full = await run({
      file: await file('FULLINC-changed.csv', sheet('FULLINC', '95% Cotton, 5% Elastane')),
      mappingFile: nativeMapping(),
    });
    expect(headerReads() - at).toBe(0);
    expect(await linkedCompositions('FULLINC')).toEqual(changedTo(fullBefore?.id));

    await setShape('bare');
    try {
      at = headerReads();
      const bare = await run({
        file: await file('BAREINC-changed.csv', sheet('BAREINC', '95% Cotton, 5% Elastane')),
        mappingFile: nativeMapping(),
      });
      expect(bare.compositions).toEqual(full.compositions);
      expect(await linkedCompositions('BAREINC')).toEqual(changedTo(bareBefore?.id));
      // one GET /material-headers?styleId= for each of the sheet's three products, which show a header
      expect(headerReads() - at).toBe(3);
    } finally {
      await setShape('full');
    }
  });
});

import { toWriteSteps } from '../../../connectors/plm-import/import-plan';
import { planImport } from '../../../connectors/plm-import/plan';
import { CatalogueIndex, parseExistingProducts } from '../../../connectors/plm-import/catalogue';
import {
  classicTeeBlackInCatalogue,
  classicTeeBlackSku,
  mapAndValidate,
  native,
  nativeHeaders,
} from './helpers';

/**
 * A body the API's schema would refuse (which validation should have caught) rejects its product before any write,
 * `invalid_request`. Its new parents are still created: the rejects file says so, as it does for the plan's other
 * rejects ("... is still created, without ...") and for the API's refusals.
 */
describe('plan-time invalid_request rejects', () => {
  const planOf = async () => {
    const validated = await mapAndValidate(native(), nativeHeaders, [
      ['S', null, null, 'Style', 'Jeans', 'no', null, null, 'S'],
      ['S-V', 'S', null, 'Variant', null, null, 'Red', null, 'S-V'],
      ['S-V-M', 'S-V', null, 'SKU', null, null, null, 'M', 'S-V-M'],
    ]);
    const plan = planImport(validated, []);
    const drafts = new Map(validated.valid.map((draft) => [draft.externalId, draft]));
    expect(plan.writes.map((write) => `${write.action} ${write.externalId}`)).toEqual([
      'create S',
      'create S-V',
      'create S-V-M',
    ]);
    return { plan, drafts };
  };
  const refusing = ({ plan }: Awaited<ReturnType<typeof planOf>>, externalId: string) => ({
    ...plan,
    writes: plan.writes.map((write) =>
      write.externalId === externalId && write.action === 'create'
        ? { ...write, body: { ...write.body, name: '' } }
        : write,
    ),
  });

  it('a refused variant names its new style, still created without it; its SKU goes with it', async () => {
    const planned = await planOf();
    const { steps, issues } = toWriteSteps(refusing(planned, 'S-V'), planned.drafts);
    expect(steps.map((step) => step.externalId)).toEqual(['S']);
    expect(issues.map((issue) => `${issue.rowNumber} ${issue.code}`)).toEqual([
      '3 invalid_request',
      '4 invalid_parent',
    ]);
    expect(issues[0]?.message).toMatch(
      /^row 3: the API would refuse 'S-V': body\.name .*; its new parent 'S' is still created, without 'S-V'$/,
    );
    expect(issues[1]?.message).not.toContain('still created');
  });

  it('a refused SKU names both new parents, nearest first', async () => {
    const planned = await planOf();
    const { steps, issues } = toWriteSteps(refusing(planned, 'S-V-M'), planned.drafts);
    expect(steps.map((step) => step.externalId)).toEqual(['S', 'S-V']);
    expect(issues[0]?.message).toMatch(/; its new parents 'S-V' and 'S' are still created, without 'S-V-M'$/);
  });

  // The flat layout spreads one product over several rows: each row's line in the rejects file names its own row.
  it('a product on several rows gets its issue on each row, each message naming that row', async () => {
    const planned = await planOf();
    const refused = refusing(planned, 'S-V');
    const spread = {
      ...refused,
      writes: refused.writes.map((write) =>
        write.externalId === 'S-V' ? { ...write, rowNumbers: [3, 5] } : write,
      ),
    };
    const { issues } = toWriteSteps(spread, planned.drafts);
    expect(issues.map((issue) => `${issue.rowNumber} ${issue.message.slice(0, 5)}`)).toEqual([
      '3 row 3',
      '5 row 5',
      '4 row 4',
    ]);
  });

  it('a refused style has no new parent to name', async () => {
    const planned = await planOf();
    const { issues } = toWriteSteps(refusing(planned, 'S'), planned.drafts);
    expect(issues[0]?.message).not.toContain('still created');
  });
});

// A giver refused here is never written and keeps its code: the products taking it (down a chain) are refused with it,
// each naming its own giver's row, rather than sent to be refused codes_not_unique.
describe('plan-time invalid_request rejects of a product giving a code up', () => {
  it("a refused giver's taker and the taker's own taker are rejected code_giver_rejected, before any write", async () => {
    const sku = (id: string, ean: string) => classicTeeBlackSku(id, ean, `P-${id}`);
    const existing = parseExistingProducts([
      ...classicTeeBlackInCatalogue(),
      sku('K1', '4006381333931'),
      sku('K2', '4006381333948'),
      sku('K3', '4006381333955'),
    ]);
    const rows = [
      ['K1', '5012345678900'], // gives its EAN to K2
      ['K2', '4006381333931'], // gives its EAN to K3
      ['K3', '4006381333948'],
    ];
    const validated = await mapAndValidate(
      native(),
      ['externalId', 'parentExternalId', 'EAN_GTIN_13'],
      rows.map(([id, ean]) => [id ?? '', '1001-BLK', ean ?? '']),
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(validated, existing);
    expect(plan.writes.map((write) => [write.externalId, write.wave ?? 0])).toEqual([
      ['K1', 0],
      ['K2', 1],
      ['K3', 2],
    ]);
    const refused = {
      ...plan,
      writes: plan.writes.map((write) =>
        write.externalId === 'K1' && write.action === 'update'
          ? { ...write, body: { ...write.body, name: '' } }
          : write,
      ),
    };
    const { steps, issues } = toWriteSteps(
      refused,
      new Map(validated.valid.map((draft) => [draft.externalId, draft])),
    );
    expect(steps).toEqual([]);
    expect(issues.map((issue) => `${issue.rowNumber} ${issue.externalId ?? ''} ${issue.code}`)).toEqual([
      '2 K1 invalid_request',
      '3 K2 code_giver_rejected',
      '4 K3 code_giver_rejected',
    ]);
    expect(issues[1]?.message).toBe(
      "row 3, column 'EAN_GTIN_13': 'K2' takes EAN_GTIN_13 '4006381333931' from row 2 ('K1'), which the plan rejects (invalid_request); fix row 2 first, then import both again: 'K2' is not written and keeps its codes",
    );
    expect(issues[2]?.message).toContain(
      "from row 3 ('K2'), which the plan rejects (code_giver_rejected); fix row 3 first",
    );
  });
});

// A swap: K1 (keeping its PLM_ID) is written first without the EAN it takes, K2 takes K1's EAN, then K1 in full. Should
// K1's full write be refused here, the ring cannot turn (its release is dropped), so K1 keeps its EAN: K2 is refused
// with it, naming K1's row, rather than sent to be refused codes_not_unique.
describe('plan-time invalid_request reject of the freed product of a swap', () => {
  it("the swap's other product is rejected code_giver_rejected naming the refused row, not sent", async () => {
    const existing = parseExistingProducts([
      ...classicTeeBlackInCatalogue(),
      classicTeeBlackSku('K1', '4006381333931', 'P-K1'),
      classicTeeBlackSku('K2', '4006381333948'),
      classicTeeBlackSku('K3', '5012345678900'),
    ]);
    const validated = await mapAndValidate(
      native(),
      ['externalId', 'parentExternalId', 'EAN_GTIN_13'],
      [
        ['K2', '1001-BLK', '4006381333931'], // takes K1's EAN
        ['K1', '1001-BLK', '4006381333948'], // takes K2's
        ['K3', '1001-BLK', '4006381333962'], // unrelated, still written
      ],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(validated, existing);
    expect(
      plan.writes.map((write) => [
        write.externalId,
        write.wave ?? 0,
        write.action === 'update' && write.release === true,
      ]),
    ).toEqual([
      ['K1', 0, true],
      ['K3', 0, false],
      ['K2', 1, false],
      ['K1', 2, false],
    ]);
    const refused = {
      ...plan,
      writes: plan.writes.map((write) =>
        write.externalId === 'K1' && write.action === 'update' && !write.release
          ? { ...write, body: { ...write.body, name: '' } }
          : write,
      ),
    };
    const { steps, issues } = toWriteSteps(
      refused,
      new Map(validated.valid.map((draft) => [draft.externalId, draft])),
    );
    expect(steps.map((step) => step.externalId)).toEqual(['K3']);
    expect(
      issues.map((issue) => `${issue.rowNumber} ${issue.externalId ?? ''} ${issue.code}`).sort(),
    ).toEqual(['2 K2 code_giver_rejected', '3 K1 invalid_request']);
    expect(issues.find((issue) => issue.externalId === 'K2')?.message).toBe(
      "row 2, column 'EAN_GTIN_13': 'K2' takes EAN_GTIN_13 '4006381333931' from row 3 ('K1'), which the plan rejects (invalid_request); fix row 3 first, then import both again: 'K2' is not written and keeps its codes",
    );
  });
});

import { collect, type TraceabilityClient } from '../../connectors/traceability';
import { caught, startHarness, unique, type Harness } from './harness';

let h: Harness;
let client: TraceabilityClient;

beforeAll(async () => {
  h = await startHarness({ childLinkDelayMs: 0 });
  client = h.client();
});
afterAll(async () => h.close());

async function newStyle(): Promise<string> {
  const ext = unique('BOMSTYLE');
  await client.products.create({
    externalId: ext,
    name: 'BOM host',
    codes: [{ codeId: 'PLM_ID', codeValue: ext }],
    styleTypeId: 'st_jackets',
    isComponent: false,
  });
  return ext;
}

describe('BOMs against the sandbox', () => {
  it('reads seeded headers and lines with their placements', async () => {
    const headers = await collect(client.boms.iterateHeaders({ styleId: 'PLM-TEE-001' }));
    expect(headers.some((hd) => hd.id === 'bomhdr_demo_merino_tee' && hd.link?.isOwner === true)).toBe(true);
    const lines = await collect(
      client.boms.iterateLines({ bomHeaderId: 'bomhdr_demo_merino_tee', include: ['placement'] }),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect((await client.boms.getHeader('bomhdr_demo_merino_tee')).name).toBe('Merino Crew Tee BOM');
  });

  it('creates a BOM with a line, replaces the line and deletes it', async () => {
    const styleExt = await newStyle();
    const header = await client.boms.createHeader({
      name: 'Main BOM',
      link: { styleId: styleExt, isMainBom: true },
    });
    expect(header.id).toMatch(/^bomhdr_/);
    const placement = await client.reference.resolvePlacement('Body');
    if (!placement.ok) throw new Error('placement Body missing');
    const line = await client.boms.createLine({
      bomHeaderId: header.id,
      entity: { styleId: styleExt },
      component: { styleId: 'CMP-BTN-15' },
      placementId: placement.id,
      quantity: 6,
      quantityUnit: 'PIECES',
      isMainComponent: true,
    });
    expect(line).toMatchObject({ bomHeaderId: header.id, quantity: 6, isMainComponent: true });

    const replaced = await client.boms.replaceLine(line.id, {
      entity: { styleId: styleExt },
      component: { styleId: 'CMP-BTN-15' },
      quantity: 8,
      quantityUnit: 'PIECES',
    });
    expect(replaced).toMatchObject({ quantity: 8, placementId: null, isMainComponent: false });

    const removed = await client.boms.deleteLines({ styleId: styleExt, bomLineIds: [line.id] });
    expect(removed).toHaveProperty('deletedLines');
    expect((await client.boms.listLines({ bomHeaderId: header.id })).items).toEqual([]);
  });

  it('passes unit errors through as row-level 400s', async () => {
    const styleExt = await newStyle();
    const header = await client.boms.createHeader({ name: 'BOM', link: { styleId: styleExt } });
    const error = await caught(
      client.boms.createLine({
        bomHeaderId: header.id,
        entity: { styleId: styleExt },
        component: { styleId: 'CMP-BTN-15' },
        quantity: 1,
        quantityUnit: 'LITRE',
      }),
    );
    expect(error).toMatchObject({ statusCode: 400, code: 'invalid_bom_quantity_unit', retryable: false });
  });
});

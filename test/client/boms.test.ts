import { collect } from '../../connectors/traceability';
import { caught } from '../harness/errors';
import { newStyle, sandboxForFile } from '../harness/sandbox-client';

const h = sandboxForFile({ childLinkDelayMs: 0 });

const bomHost = (): Promise<string> => newStyle(h.client, 'BOMSTYLE', 'st_jackets');

describe('BOMs against the sandbox', () => {
  it('reads seeded headers and lines with their placements', async () => {
    const headers = await collect(h.client.boms.iterateHeaders({ styleId: 'PLM-TEE-001' }));
    expect(headers.some((hd) => hd.id === 'bomhdr_demo_merino_tee' && hd.link?.isOwner === true)).toBe(true);
    const lines = await collect(
      h.client.boms.iterateLines({ bomHeaderId: 'bomhdr_demo_merino_tee', include: ['placement'] }),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect((await h.client.boms.getHeader('bomhdr_demo_merino_tee')).name).toBe('Merino Crew Tee BOM');
  });

  it('creates a BOM with a line, replaces the line and deletes it', async () => {
    const styleExt = await bomHost();
    const header = await h.client.boms.createHeader({
      name: 'Main BOM',
      link: { styleId: styleExt, isMainBom: true },
    });
    expect(header.id).toMatch(/^bomhdr_/);
    const placement = await h.client.reference.resolvePlacement('Body');
    if (!placement.ok) throw new Error('placement Body missing');
    const line = await h.client.boms.createLine({
      bomHeaderId: header.id,
      entity: { styleId: styleExt },
      component: { styleId: 'CMP-BTN-15' },
      placementId: placement.id,
      quantity: 6,
      quantityUnit: 'PIECES',
      isMainComponent: true,
    });
    expect(line).toMatchObject({ bomHeaderId: header.id, quantity: 6, isMainComponent: true });

    const replaced = await h.client.boms.replaceLine(line.id, {
      entity: { styleId: styleExt },
      component: { styleId: 'CMP-BTN-15' },
      quantity: 8,
      quantityUnit: 'PIECES',
    });
    expect(replaced).toMatchObject({ quantity: 8, placementId: null, isMainComponent: false });

    const removed = await h.client.boms.deleteLines({ styleId: styleExt, bomLineIds: [line.id] });
    expect(removed).toHaveProperty('deletedLines');
    expect((await h.client.boms.listLines({ bomHeaderId: header.id })).items).toEqual([]);
  });

  it('passes unit errors through as row-level 400s', async () => {
    const styleExt = await bomHost();
    const header = await h.client.boms.createHeader({ name: 'BOM', link: { styleId: styleExt } });
    const error = await caught(
      h.client.boms.createLine({
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

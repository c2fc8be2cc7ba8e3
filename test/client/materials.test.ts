import { caught } from '../harness/errors';
import { newStyle, sandboxForFile } from '../harness/sandbox-client';

const h = sandboxForFile({ childLinkDelayMs: 0 });

describe('materials against the sandbox', () => {
  it('builds a composition tree, enforces its rules and deletes it bottom-up', async () => {
    const ext = await newStyle(h.client, 'MATSTYLE', 'st_tshirts');
    const header = await h.client.materials.createHeader({
      name: 'Shell',
      description: null,
      link: { styleId: ext, isMainMaterial: true },
    });
    expect(header.id).toMatch(/^mtrialhdr_/);

    const root = await h.client.materials.createLine({
      styleId: ext,
      materialHeaderId: header.id,
      parentId: null,
      rawMaterialId: 'RAW_WOOL',
      percentage: 80,
      countriesOfOrigin: ['NZ', 'AU'],
    });
    const child = await h.client.materials.createLine({
      styleId: ext,
      materialHeaderId: header.id,
      parentId: root.id,
      rawMaterialId: 'RAW_MERINO',
      percentage: 100,
      countriesOfOrigin: ['NZ'],
    });
    expect(child.parentId).toBe(root.id);

    const over = await caught(
      h.client.materials.createLine({
        styleId: ext,
        materialHeaderId: header.id,
        parentId: null,
        rawMaterialId: 'RAW_PA',
        percentage: 30,
      }),
    );
    expect(over).toMatchObject({
      statusCode: 400,
      code: 'percentage_constraint_violation',
      retryable: false,
    });

    const replaced = await h.client.materials.replaceLine(root.id, {
      styleId: ext,
      materialHeaderId: header.id,
      parentId: null,
      rawMaterialId: 'RAW_WOOL',
      percentage: 70,
      countriesOfOrigin: ['NZ', 'AU'],
    });
    expect(replaced.percentage).toBe(70);

    const headers = await h.client.materials.listHeaders({ styleId: ext });
    expect(headers.items.map((x) => x.id)).toContain(header.id);
    expect((await h.client.materials.listLines({ materialHeaderId: header.id })).items).toHaveLength(2);

    await h.client.materials.deleteLines({ styleId: ext, materialLineIds: [child.id] });
    await h.client.materials.deleteLines({ styleId: ext, materialLineIds: [root.id] });
    expect((await h.client.materials.listLines({ materialHeaderId: header.id })).items).toEqual([]);
    const deleted = await h.client.materials.deleteHeaders({ styleId: ext, materialHeaderIds: [header.id] });
    expect(deleted).toHaveProperty('deletedHeaders');
  });
});

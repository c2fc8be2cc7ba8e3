import { archivedSkusOf } from '../../../connectors/plm-import/composition-steps';
import { ApiCalls } from '../../../connectors/staging';
import { sandboxWithProducts, type SeededSandbox } from './tie-sandbox';

/**
 * The archived SKUs of the variants a plan detaches through: seeded SKUs share `createdAt`, and spec 01 gives no order
 * among equal sort values, so a read by page number may meet a SKU twice and miss another.
 */
describe('archivedSkusOf when archived SKUs with equal sort values come in no stable order', () => {
  let seeded: SeededSandbox;
  const variants = ['A', 'B', 'C'].map((letter) => `style_01ARCHVAR${letter.padStart(18, '0')}`);
  const perVariant = 50;

  beforeAll(async () => {
    const styleId = 'style_01ARCHSTYLE0000000000000000';
    const products = [
      {
        id: styleId,
        forCompanyId: 'cmp_brand_nordic_threads',
        externalId: 'ARCH-STYLE',
        name: 'Archived ties',
        styleTypeId: 'st_tshirts',
        isComponent: false,
        codes: [{ codeId: 'PLM_ID', codeValue: 'ARCH-STYLE' }],
      },
      ...variants.map((id, v) => ({
        id,
        parentId: styleId,
        externalId: `ARCH-V${v}`,
        name: `Archived ties ${v}`,
        codes: [{ codeId: 'PLM_ID', codeValue: `ARCH-V${v}` }],
      })),
      ...variants.flatMap((variantId, v) =>
        Array.from({ length: perVariant }, (_, i) => ({
          id: `style_01ARCHSKU${String(v * 1000 + i).padStart(19, '0')}`,
          parentId: variantId,
          externalId: `ARCH-V${v}-${i}`,
          name: `Archived ties ${v} ${i}`,
          codes: [{ codeId: 'PLM_ID', codeValue: `ARCH-V${v}-${i}` }],
          isArchived: true,
        })),
      ),
    ];
    seeded = await sandboxWithProducts(products);
  });

  afterAll(() => seeded.close());

  const read = async (): Promise<Map<string, string[]>> => {
    const byVariant = await archivedSkusOf(variants, new ApiCalls(seeded.client));
    return new Map(variants.map((id) => [id, (byVariant.get(id) ?? []).map((sku) => sku.id)]));
  };

  it('reads each archived SKU of the variants once', async () => {
    const expectWhole = (read: Map<string, string[]>) => {
      for (const id of variants) {
        const skus = read.get(id) ?? [];
        expect(skus).toHaveLength(perVariant);
        expect(new Set(skus).size).toBe(perVariant);
      }
    };
    expectWhole(await read());
    await seeded.setProductTies('shuffled');
    for (let attempt = 0; attempt < 3; attempt++) expectWhole(await read());
  });
});

import { collect } from '../../connectors/traceability';
import { caught } from '../harness/errors';
import { sandboxForFile, unique } from '../harness/sandbox-client';

const h = sandboxForFile();

describe('products against the sandbox', () => {
  it('lists every style across pages and reads one by externalId', async () => {
    const styles = await collect(h.client.products.iterate({ level: 'style' }));
    expect(styles.length).toBeGreaterThan(3);
    expect(styles.every((s) => !s.isArchived)).toBe(true);
    const jacket = await h.client.products.get('PLM-JKT-010');
    expect(jacket.externalId).toBe('PLM-JKT-010');
    expect(jacket.id).toMatch(/^style_/);
  });

  it('creates a style and a variant by externalId, updates and archives them', async () => {
    const ext = unique('EXT');
    const style = await h.client.products.create({
      externalId: ext,
      name: 'Integration Tee',
      codes: [{ codeId: 'PLM_ID', codeValue: ext }],
      styleTypeId: 'st_tshirts',
      isComponent: false,
    });
    expect(style.id).toMatch(/^style_/);
    const variant = await h.client.products.create({
      parentId: ext,
      externalId: `${ext}-RED`,
      name: 'Integration Tee Red',
      color: 'Red',
      codes: [{ codeId: 'PLM_ID', codeValue: `${ext}-RED` }],
    });
    expect(variant.styleId).toBe(style.id);

    const updated = await h.client.products.update(ext, { name: 'Integration Tee v2' });
    expect(updated).toMatchObject({ name: 'Integration Tee v2', externalId: ext });

    await h.client.products.archive([style.id]);
    expect((await h.client.products.get(`${ext}-RED`)).isArchived).toBe(true);
    await h.client.products.unarchive([style.id], { shouldUnarchiveChildren: false });
    expect((await h.client.products.get(ext)).isArchived).toBe(false);
    expect((await h.client.products.get(`${ext}-RED`)).isArchived).toBe(true);
  });

  it('reports a duplicate externalId as a non-retryable 409', async () => {
    const error = await caught(
      h.client.products.create({
        externalId: 'PLM-JKT-010',
        name: 'Dup',
        codes: [{ codeId: 'PLM_ID', codeValue: unique('X') }],
        styleTypeId: 'st_tshirts',
        isComponent: false,
      }),
    );
    expect(error).toMatchObject({
      statusCode: 409,
      code: 'external_id_already_exists',
      retryable: false,
      maybeCommitted: false,
    });
  });

  it('finds products by natural key: externalId and code at any level, archived included', async () => {
    expect(await h.client.naturalKeys.findProductByExternalId('does-not-exist')).toBeUndefined();
    expect((await h.client.naturalKeys.findProductByExternalId('PLM-TEE-001-BLK'))?.styleId).toMatch(
      /^style_/,
    );
    const byCode = await h.client.naturalKeys.findProductByCode('PLM_ID', 'PLM-TEE-001-BLK');
    expect(byCode?.externalId).toBe('PLM-TEE-001-BLK');
    const archived = await h.client.naturalKeys.findProductByCode('PLM_ID', 'PLM-FLC-002-GRY');
    expect(archived?.isArchived).toBe(true);
    expect(await h.client.naturalKeys.findProductByCode('PLM_ID', 'PLM-TEE-001-B')).toBeUndefined();
  });

  it('syncs updated products incrementally from a stored checkpoint', async () => {
    const first = h.client.products.syncUpdated({ level: 'style' });
    const initial = await collect(first);
    expect(initial.length).toBeGreaterThan(0);
    const mark = first.checkpoint();
    expect(mark.highWaterMarkMs).toBeGreaterThan(0);

    await new Promise((resolve) => setTimeout(resolve, 5));
    await h.client.products.update('PLM-TEE-001', { description: unique('touched') });
    const second = h.client.products.syncUpdated({ level: 'style' }, mark);
    expect((await collect(second)).map((p) => p.externalId)).toEqual(['PLM-TEE-001']);
  });
});

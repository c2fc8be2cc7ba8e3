import { mapForkToSnapshot } from '../../../connectors/bom-repair/lines';
import { copyOf, line } from './fixtures';

describe('mapForkToSnapshot (safe write: repair from the exact snapshot)', () => {
  const fabric = line({ styleId: 'cmp_fabric', placementId: 'bomplc_body', isMainComponent: true });
  const button = line({ styleId: 'cmp_button', placementId: 'bomplc_placket', quantity: 3 });
  const horn = line({ styleId: 'cmp_horn', placementId: 'bomplc_cuff', quantity: 2 });
  const corozo = line({ styleId: 'cmp_corozo', placementId: 'bomplc_cuff', quantity: 2 });

  it('restores every copied line from the snapshot line it came from, leaving the written line alone', () => {
    const written = { ...copyOf(button), styleId: 'cmp_button', quantity: 4 };
    const fork = [copyOf(fabric), written, copyOf(horn), copyOf(corozo)];
    const mapping = mapForkToSnapshot([fabric, button, horn, corozo], fork, {
      snapshotLineIds: new Set([button.id]),
      forkLineIds: new Set([written.id]),
    });
    expect(mapping.mismatches).toEqual([]);
    const byLine = Object.fromEntries(mapping.repairs.map((r) => [r.lineId, r]));
    expect(byLine[fork[0]!.id]).toMatchObject({
      sourceLineId: fabric.id,
      component: { styleId: 'cmp_fabric', isMainComponent: true },
      method: 'values',
    });
    // Same kept values, different components: paired by the order the fork preserved.
    expect(byLine[fork[2]!.id]).toMatchObject({
      sourceLineId: horn.id,
      component: { styleId: 'cmp_horn' },
      method: 'order',
    });
    expect(byLine[fork[3]!.id]).toMatchObject({
      sourceLineId: corozo.id,
      component: { styleId: 'cmp_corozo' },
      method: 'order',
    });
    expect(mapping.repairs).toHaveLength(3);
  });

  it('after a delete, maps the remaining copies without the deleted lines', () => {
    const mapping = mapForkToSnapshot([fabric, button], [copyOf(fabric)], {
      snapshotLineIds: new Set([button.id]),
    });
    expect(mapping.repairs.map((r) => r.sourceLineId)).toEqual([fabric.id]);
    expect(mapping.mismatches).toEqual([]);
  });

  it('reports, and does not repair, values whose count differs from the snapshot (the source changed meanwhile)', () => {
    const mapping = mapForkToSnapshot([fabric, button], [copyOf(fabric), copyOf({ ...button, quantity: 9 })]);
    expect(mapping.repairs.map((r) => r.sourceLineId)).toEqual([fabric.id]);
    expect(mapping.mismatches).toHaveLength(2);
    expect(mapping.mismatches.join('\n')).toContain('quantity 9 PIECES');
  });
});

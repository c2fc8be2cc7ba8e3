import {
  SNAPSHOT_WINDOW_MS,
  snapshotForFork,
  type ForkSnapshot,
} from '../../../connectors/bom-repair/fork-snapshots';
import { line } from './fixtures';

// Spec 02, BOMs table: "PUT /bom-lines/{id} with no change | No copy | Existing data returned", and a refused write
// (400/404) makes no copy either. A snapshot is the fork-time record of one fork only: the repair trusts it when it
// belongs to the fork it repairs, and never when the source changed between the snapshot and that fork.
describe('snapshotForFork (is a kept snapshot the record of this fork?)', () => {
  const takenAt = '2026-05-01T10:00:00.000Z';
  const forkAt = '2026-05-01T10:00:00.400Z';
  const fork = { id: 'bomhdr_fork', createdAt: forkAt };
  const stamp = (at: string) => ({ createdAt: '2026-04-01T00:00:00.000Z', updatedAt: at });
  const fabric = {
    ...line({ styleId: 'cmp_fabric', isMainComponent: true }),
    ...stamp('2026-04-01T00:00:00.000Z'),
  };
  const label = {
    ...line({ styleId: 'cmp_label', placementId: 'bomplc_neck' }),
    ...stamp('2026-04-02T00:00:00.000Z'),
  };
  const snapshot = (over: Partial<ForkSnapshot> = {}): ForkSnapshot => ({
    productId: 'sku_1',
    sourceHeaderId: 'bomhdr_src',
    takenAt,
    writtenLineIds: [],
    lines: [fabric, label],
    ...over,
  });
  const relabelled = (at: string) => ({ ...label, styleId: 'cmp_button', updatedAt: at });

  it('uses a snapshot marked with this fork, and one taken just before it when the source has not changed since', () => {
    expect(snapshotForFork(snapshot({ forkHeaderId: fork.id }), fork, [fabric, label])).toMatchObject({
      use: true,
    });
    const trusted = snapshotForFork(snapshot({ writtenLineIds: [fabric.id] }), fork, [fabric, label]);
    expect(trusted.use && trusted.lines.map((l) => l.id)).toEqual([label.id]);
  });

  it('still uses it when a source line changed after the fork (what the snapshot is kept for)', () => {
    const after = relabelled('2026-05-01T11:00:00.000Z');
    expect(snapshotForFork(snapshot(), fork, [fabric, after])).toMatchObject({ use: true });
  });

  it('sets aside a snapshot marked with another fork', () => {
    expect(snapshotForFork(snapshot({ forkHeaderId: 'bomhdr_other' }), fork, [fabric, label])).toEqual({
      use: false,
      reason: `it records the fork bomhdr_other, not ${fork.id}`,
    });
  });

  it('sets aside an unmarked snapshot not taken within the safe write’s window before the fork', () => {
    const old = new Date(Date.parse(forkAt) - SNAPSHOT_WINDOW_MS - 1).toISOString();
    const early = snapshotForFork(snapshot({ takenAt: old }), fork, [fabric, label]);
    expect(early).toMatchObject({ use: false });
    expect(!early.use && early.reason).toContain(`taken at ${old}`);
    const late = new Date(Date.parse(forkAt) + SNAPSHOT_WINDOW_MS + 1).toISOString();
    expect(snapshotForFork(snapshot({ takenAt: late }), fork, [fabric, label])).toMatchObject({ use: false });
    expect(snapshotForFork(snapshot(), { id: fork.id, createdAt: null }, [fabric, label])).toMatchObject({
      use: false,
    });
  });

  it('sets aside a snapshot when a source line changed, or was added, between the snapshot and the fork', () => {
    const between = relabelled('2026-05-01T10:00:00.200Z');
    const changed = snapshotForFork(snapshot({ forkHeaderId: fork.id }), fork, [fabric, between]);
    expect(changed).toEqual({
      use: false,
      reason: `source line ${label.id} changed at ${between.updatedAt}, between the snapshot (${takenAt}) and the fork (${forkAt})`,
    });
    const added = {
      ...line({ styleId: 'cmp_zip', placementId: 'bomplc_front' }),
      createdAt: '2026-05-01T10:00:00.100Z',
      updatedAt: '2026-05-01T10:00:00.100Z',
    };
    const grown = snapshotForFork(snapshot(), fork, [fabric, label, added]);
    expect(!grown.use && grown.reason).toContain(`source line ${added.id} was added at ${added.createdAt}`);
  });

  it('without the snapshot’s own updatedAt, compares what the line holds', () => {
    const bare = (l: typeof label) => ({ ...l, updatedAt: undefined });
    const kept = snapshot({ lines: [bare(fabric), bare(label)] });
    expect(snapshotForFork(kept, fork, [fabric, label])).toMatchObject({ use: true });
    expect(snapshotForFork(kept, fork, [fabric, relabelled('2026-05-01T10:00:00.200Z')])).toMatchObject({
      use: false,
    });
  });
});

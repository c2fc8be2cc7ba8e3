import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keptKey } from '../../../connectors/bom-repair/lines';
import { RepairRecordStore } from '../../../connectors/bom-repair/repair-records';
import { line } from './fixtures';

describe('RepairRecordStore', () => {
  const repaired = { ...line({ styleId: 'cmp_label' }), updatedAt: '2026-01-02T00:00:00.000Z' };
  const at = (updatedAt: string) => ({ ...repaired, updatedAt });

  it('knows a line whose latest write was the recorded repair, and nothing else', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'repair-records-'));
    const store = new RepairRecordStore(folder);
    await store.add('bomhdr_v', [
      { lineId: repaired.id, updatedAt: '2026-01-02T00:00:00.000Z', kept: keptKey(repaired) },
    ]);
    const ours = await store.lastWrittenByRepair('bomhdr_v');
    expect(ours(at('2026-01-02T00:00:00.000Z'))).toBe(true);
    // Written again since (an owner's edit), or its values differ from what the repair left: a real change.
    expect(ours(at('2026-01-03T00:00:00.000Z'))).toBe(false);
    expect(ours({ ...at('2026-01-02T00:00:00.000Z'), quantity: 7 })).toBe(false);
    expect((await store.lastWrittenByRepair('bomhdr_other'))(at('2026-01-02T00:00:00.000Z'))).toBe(false);
  });

  it('treats an unreadable record as none (its lines count as changed)', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'repair-records-'));
    writeFileSync(path.join(folder, 'bomhdr_v.json'), '{ not json');
    const ours = await new RepairRecordStore(folder).lastWrittenByRepair('bomhdr_v');
    expect(ours(at('2026-01-02T00:00:00.000Z'))).toBe(false);
  });
});

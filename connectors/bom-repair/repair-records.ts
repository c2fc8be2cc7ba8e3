import { join } from 'node:path';
import { z } from 'zod';
import { readStoredJson, storeJson } from '../staging';
import { keptKey, type LineView } from './lines';

/**
 * The lines this job repaired, per header, each with the `updatedAt` its re-read showed and its kept values. A
 * repair only writes a line that lacks its component, and every PUT names a component (spec 02: "`entity` and
 * `component` required"), so such a line was never written between its creation and the repair. When that repair
 * is still its latest write, its kept values are the ones it was created with: a fork made from it in between (a
 * SKU forking its variant's unrepaired fork) copied those values, and the repair is no change to them.
 */
const recordSchema = z.strictObject({
  headerId: z.string().min(1),
  lines: z.record(z.string(), z.strictObject({ updatedAt: z.string(), kept: z.string() })),
});
type RepairRecord = z.infer<typeof recordSchema>;

export interface RepairedLine {
  lineId: string;
  updatedAt: string;
  kept: string;
}

const safe = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

/** One document per repaired header in a folder of the data folder (so in the run-data store). */
export class RepairRecordStore {
  constructor(private readonly folder: string) {}

  private path(headerId: string): string {
    return join(this.folder, `${safe(headerId)}.json`);
  }

  private async read(headerId: string): Promise<RepairRecord['lines']> {
    try {
      return (await readStoredJson(this.path(headerId), recordSchema))?.lines ?? {};
    } catch {
      // Unreadable: as if nothing was recorded (its lines count as changed, the safe side).
      return {};
    }
  }

  async add(headerId: string, repaired: readonly RepairedLine[]): Promise<void> {
    if (repaired.length === 0) return;
    const lines = await this.read(headerId);
    for (const { lineId, updatedAt, kept } of repaired) lines[lineId] = { updatedAt, kept };
    await storeJson(this.path(headerId), recordSchema.parse({ headerId, lines }));
  }

  /** Whether this line's latest write was this job's repair (its `updatedAt` and kept values as recorded). */
  async lastWrittenByRepair(
    headerId: string,
  ): Promise<(line: LineView & { updatedAt?: string | null }) => boolean> {
    const lines = await this.read(headerId);
    return (line) => {
      const recorded = lines[line.id];
      return (
        recorded !== undefined && recorded.updatedAt === line.updatedAt && recorded.kept === keptKey(line)
      );
    };
  }
}

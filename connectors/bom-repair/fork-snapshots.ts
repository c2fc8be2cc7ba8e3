import { join } from 'node:path';
import { z } from 'zod';
import { readStoredJson, storeJson } from '../staging';
import { lineViewSchema, type LineView } from './lines';

/**
 * What a source BOM held just before a write through an inherited link forked it, kept for later repairs: the
 * safe write path takes it anyway, and it is the only exact record of each copied line's component at fork time.
 * One document per (product, source header): a product forks a given source at most once (the fork detaches it).
 */
const forkSnapshotSchema = z.strictObject({
  /** Platform id of the product the write went through. */
  productId: z.string().min(1),
  sourceHeaderId: z.string().min(1),
  takenAt: z.string(),
  /** Source lines the write replaced or deleted: their copies carry the written values, not the snapshot's. */
  writtenLineIds: z.array(z.string()),
  lines: z.array(lineViewSchema),
});
export type ForkSnapshot = z.infer<typeof forkSnapshotSchema>;

const safe = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

/** Fork-time snapshots in a folder of the data folder (so in the run-data store). */
export class ForkSnapshotStore {
  constructor(private readonly folder: string) {}

  private path(productId: string, sourceHeaderId: string): string {
    return join(this.folder, `${safe(productId)}__${safe(sourceHeaderId)}.json`);
  }

  async save(snapshot: ForkSnapshot): Promise<void> {
    await storeJson(
      this.path(snapshot.productId, snapshot.sourceHeaderId),
      forkSnapshotSchema.parse(snapshot),
    );
  }

  /** The snapshot, or null when none was kept (or it cannot be read: then the repair works as without one). */
  async find(productId: string, sourceHeaderId: string): Promise<ForkSnapshot | null> {
    try {
      return (await readStoredJson(this.path(productId, sourceHeaderId), forkSnapshotSchema)) ?? null;
    } catch {
      return null;
    }
  }
}

/** The snapshot's lines as the fork saw them: without the lines the write itself replaced or deleted. */
export function snapshotSourceLines(snapshot: ForkSnapshot): LineView[] {
  const written = new Set(snapshot.writtenLineIds);
  return snapshot.lines.filter((line) => !written.has(line.id));
}

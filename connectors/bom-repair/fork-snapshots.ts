import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '../storage';
import type { LineView } from './line-fields';

/**
 * What a source BOM held just before a write through an inherited link forked it, kept for later repairs: the
 * safe write path takes it anyway, and it is the only exact record of each copied line's component at fork time.
 * One file per (product, source header): a product forks a given source at most once (the fork detaches it).
 */
const lineSchema = z.object({
  id: z.string(),
  bomHeaderId: z.string(),
  placementId: z.string().nullish(),
  styleId: z.string().nullish(),
  quantity: z.number().nullish(),
  quantityUnit: z.string().nullish(),
  weight: z.number().nullish(),
  weightUnit: z.string().nullish(),
  countryOfOrigin: z.string().nullish(),
  isMainComponent: z.boolean().nullish(),
  createdAt: z.string().nullish(),
});

export const forkSnapshotSchema = z.strictObject({
  /** Platform id of the product the write went through. */
  productId: z.string().min(1),
  sourceHeaderId: z.string().min(1),
  takenAt: z.string(),
  /** Source lines the write replaced or deleted: their copies carry the written values, not the snapshot's. */
  writtenLineIds: z.array(z.string()),
  lines: z.array(lineSchema),
});
export type ForkSnapshot = z.infer<typeof forkSnapshotSchema>;

const safe = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

export class ForkSnapshotStore {
  constructor(private readonly folder: string) {}

  private path(productId: string, sourceHeaderId: string): string {
    return join(this.folder, `${safe(productId)}__${safe(sourceHeaderId)}.json`);
  }

  async save(snapshot: ForkSnapshot): Promise<void> {
    const target = this.path(snapshot.productId, snapshot.sourceHeaderId);
    await writeFileAtomically(target, `${JSON.stringify(forkSnapshotSchema.parse(snapshot))}\n`);
  }

  /** The snapshot, or null when none was kept (or it cannot be read: then the repair works as without one). */
  async find(productId: string, sourceHeaderId: string): Promise<ForkSnapshot | null> {
    let text: string;
    try {
      text = await readFile(this.path(productId, sourceHeaderId), 'utf8');
    } catch {
      return null;
    }
    try {
      const parsed = forkSnapshotSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
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

import { join } from 'node:path';
import { z } from 'zod';
import { readStoredJson, storeJson } from '../staging';
import { locate } from '../storage';
import { componentOf, keptKey, lineViewSchema, timeMs, type LineView } from './lines';

/** A source line as the snapshot saw it, with its `updatedAt` (to tell whether it changed before the fork). */
const snapshotLineSchema = lineViewSchema.extend({ updatedAt: z.string().nullish() });
type SnapshotLine = z.infer<typeof snapshotLineSchema>;

/**
 * What a source BOM held just before a write through an inherited link, kept for later repairs: the only exact
 * record of each copied line's component at fork time, when that write forked. One document per (product, source
 * header): a product forks a given source at most once (the fork detaches it). A write that did not fork (spec 02:
 * "PUT /bom-lines/{id} with no change | No copy", or a refused one) leaves none: the safe write removes it.
 */
const forkSnapshotSchema = z.strictObject({
  /** Platform id of the product the write went through. */
  productId: z.string().min(1),
  sourceHeaderId: z.string().min(1),
  /** This worker's clock, just before the write. */
  takenAt: z.string(),
  /**
   * The fork the write made, set as soon as it answered. Absent while the write's outcome is unknown (a run that
   * died in the write, an answer lost): then only the times say whether the snapshot is this fork's.
   */
  forkHeaderId: z.string().min(1).nullish(),
  /** Source lines the write replaced or deleted: their copies carry the written values, not the snapshot's. */
  writtenLineIds: z.array(z.string()),
  lines: z.array(snapshotLineSchema),
});
export type ForkSnapshot = z.input<typeof forkSnapshotSchema>;

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

  async remove(productId: string, sourceHeaderId: string): Promise<void> {
    const { store, key } = locate(this.path(productId, sourceHeaderId));
    await store.remove(key);
  }
}

/** The snapshot's lines as the fork saw them: without the lines the write itself replaced or deleted. */
export function snapshotSourceLines(snapshot: ForkSnapshot): LineView[] {
  const written = new Set(snapshot.writtenLineIds);
  return snapshot.lines.filter((line) => !written.has(line.id));
}

/**
 * How far apart an unmarked snapshot (`takenAt`, this worker's clock) and its fork's `createdAt` (the API's) may be:
 * the safe write's one write call with its retries (five attempts of up to 30 s, backoff, 429 waits) and the two
 * clocks off by up to a minute. A fork outside it was not made by the write that took the snapshot.
 */
export const SNAPSHOT_WINDOW_MS = 10 * 60_000;
const CLOCK_SKEW_MS = 60_000;

export type SnapshotTrust = { use: true; lines: LineView[] } | { use: false; reason: string };

function holdsTheSame(before: SnapshotLine, now: SnapshotLine): boolean {
  if (before.updatedAt && now.updatedAt) return before.updatedAt === now.updatedAt;
  const ref = (line: LineView) => JSON.stringify(componentOf(line));
  return keptKey(before) === keptKey(now) && ref(before) === ref(now);
}

/**
 * Whether a kept snapshot is the exact record of `fork` (one of the product's owned headers), judged against the
 * source's current lines. It is when it is marked with this fork, or (unmarked) was taken within
 * `SNAPSHOT_WINDOW_MS` before the fork's `createdAt`; and, either way, no source line was added or changed between
 * the snapshot and the fork (the API's own times, compared with the fork's). A line changed after the fork is what
 * the snapshot is kept for. Anything else sets it aside, and the repair works from the current source as without one.
 */
export function snapshotForFork(
  snapshot: ForkSnapshot,
  fork: { id: string; createdAt?: string | null },
  source: readonly SnapshotLine[],
): SnapshotTrust {
  if (snapshot.forkHeaderId && snapshot.forkHeaderId !== fork.id)
    return { use: false, reason: `it records the fork ${snapshot.forkHeaderId}, not ${fork.id}` };
  const forkMs = timeMs(fork.createdAt);
  if (Number.isNaN(forkMs)) return { use: false, reason: `the fork's creation time is unknown` };
  if (!snapshot.forkHeaderId) {
    const takenMs = timeMs(snapshot.takenAt);
    if (Number.isNaN(takenMs) || forkMs - takenMs > SNAPSHOT_WINDOW_MS || takenMs - forkMs > CLOCK_SKEW_MS)
      return {
        use: false,
        reason:
          `taken at ${snapshot.takenAt}, not within ${SNAPSHOT_WINDOW_MS / 60_000} minutes before the fork ` +
          `(${fork.createdAt}): not the record of a write that made this fork`,
      };
  }
  const between = `between the snapshot (${snapshot.takenAt}) and the fork (${fork.createdAt})`;
  const before = new Map(snapshot.lines.map((line) => [line.id, line]));
  for (const line of source) {
    const kept = before.get(line.id);
    if (!kept) {
      const createdMs = timeMs(line.createdAt);
      if (Number.isNaN(createdMs) || createdMs <= forkMs)
        return {
          use: false,
          reason: `source line ${line.id} was added at ${line.createdAt ?? '?'}, ${between}`,
        };
      continue;
    }
    if (holdsTheSame(kept, line)) continue;
    const updatedMs = timeMs(line.updatedAt);
    if (Number.isNaN(updatedMs) || updatedMs <= forkMs)
      return { use: false, reason: `source line ${line.id} changed at ${line.updatedAt ?? '?'}, ${between}` };
  }
  return { use: true, lines: snapshotSourceLines(snapshot) };
}

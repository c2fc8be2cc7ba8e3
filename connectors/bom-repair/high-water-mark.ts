import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '../storage';

/**
 * Where the scheduled repair (`sinceLastRun`) stopped: BOM headers created or changed at or after `sinceMs` are
 * looked at on the next run. Kept like the order pull's mark (connectors/erp-pull/high-water-mark.ts): one JSON
 * file, written atomically, only after a run finished.
 */
export const bomMarkSchema = z.strictObject({
  sinceMs: z.number().int().nonnegative(),
  storedAt: z.string(),
});
export type BomMark = z.infer<typeof bomMarkSchema>;

/**
 * How far before the scan's start the next mark is set. Forks made while the scan reads its pages, and a worker
 * clock ahead of the API's, must not fall behind the mark; looking at a fork twice costs reads, never a write.
 */
export const MARK_SAFETY_MS = 5 * 60_000;

export function bomMarkFile(dataDir: string, markName: string): string {
  return join(dataDir, 'bom-repair', `high-water-mark-${markName}.json`);
}

export class CorruptBomMarkError extends Error {}

/** The stored mark, or 0 (every header) before the first run. */
export async function readBomMark(file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return 0;
  }
  let parsed;
  try {
    parsed = bomMarkSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new CorruptBomMarkError(
      `the BOM repair high-water mark ${file} is not readable: restore it, or delete it to look at every BOM again`,
    );
  }
  return parsed.data.sinceMs;
}

/** The mark after a run whose scan started at `scanStartedMs` (never moves back). */
export function nextBomMark(previousMs: number, scanStartedMs: number): number {
  return Math.max(previousMs, scanStartedMs - MARK_SAFETY_MS);
}

export async function storeBomMark(file: string, sinceMs: number, now = new Date()): Promise<void> {
  await writeFileAtomically(file, `${JSON.stringify({ sinceMs, storedAt: now.toISOString() }, null, 2)}\n`);
}

/** What the timestamps of a fork's lines and headers tell of the write that made it (the repair plan reads them). */
import type { BomHeader } from '../traceability';
import { lacksComponent, timeMs, type LineView } from './lines';
import { COPY_SUFFIX } from './source-header';

/** The source line was changed by a write after the fork (or when the fork time is unknown, ever changed). */
export function changedAfter(line: LineView & { updatedAt?: string | null }, forkMs: number): boolean {
  const updated = timeMs(line.updatedAt);
  const created = timeMs(line.createdAt);
  if (Number.isNaN(updated) || updated <= created) return false;
  return Number.isNaN(forkMs) || updated >= forkMs;
}

/** Lines that existed when the fork copied the source (a line created afterwards was never copied). */
export function existedAt(line: LineView, forkMs: number): boolean {
  const created = timeMs(line.createdAt);
  return Number.isNaN(forkMs) || Number.isNaN(created) || created <= forkMs;
}

/**
 * How long after the fork's header a line the forking write made may be stamped: one request writes both, but the
 * header and the line take their own instants (the sandbox's differ by a millisecond now and then).
 */
const FORKING_WRITE_MS = 2000;

/**
 * Lines the write that forked wrote (POST and PUT /bom-lines keep the values sent, component included): the fork's
 * lines from its creation holding a component and not changed since. A line repaired or edited after the fork is not
 * one; a fork made by a header edit or a line delete holds none.
 */
export function writtenAtFork(
  lines: readonly (LineView & { updatedAt?: string | null })[],
  forkMs: number,
): number {
  const madeBy = forkMs + FORKING_WRITE_MS;
  return lines.filter(
    (line) => existedAt(line, madeBy) && !lacksComponent(line) && !changedAfter(line, madeBy),
  ).length;
}

/**
 * The fork's header shows a header edit made it (spec 02, PUT /bom-headers changing name or description: "header
 * duplicated (name suffixed ` (Copy)` unless a new name was supplied), lines copied"): its name is not the source's
 * with ` (Copy)`, which a line write's copy always gets, or its description is not the source's, which such a copy
 * keeps. Only when neither header changed since the fork: a later rename or description would look the same.
 */
export function madeByHeaderEdit(
  fork: BomHeader | undefined,
  source: BomHeader | undefined,
  sourceName: string,
): boolean {
  if (!fork || !source) return false;
  const made = timeMs(fork.createdAt);
  const forkEdited = timeMs(fork.updatedAt);
  const sourceEdited = timeMs(source.updatedAt);
  if ([made, forkEdited, sourceEdited].some(Number.isNaN)) return false;
  if (forkEdited > made || sourceEdited >= made) return false;
  return (
    fork.name !== `${sourceName}${COPY_SUFFIX}` || (fork.description ?? null) !== (source.description ?? null)
  );
}

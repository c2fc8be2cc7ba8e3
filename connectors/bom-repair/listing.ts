import type { LineOutcome, ProductRepairResult } from './repair-schemas';

/**
 * What a BOM repair result lists: a batch activity's result and the workflow's result are payloads that error at
 * 2 MB (an ambiguous line with its candidates is near 750 bytes), so a product with thousands of lines must not travel
 * whole. At most MAX_LINES_PER_PRODUCT lines a product and MAX_LISTED_LINES in all are listed, problems first; the
 * counts stay whole and `linesOmitted` counts the rest. Pure: the workflow applies the same rules.
 */
export const MAX_LINES_PER_PRODUCT = 100;
export const MAX_LISTED_LINES = 1_000;

const PROBLEM_OUTCOMES: ReadonlySet<string> = new Set(['ambiguous', 'unmatched', 'failed']);

/**
 * A product's findings as a result lists them: `linesOmitted` lines are counted, not listed; `linesFile` (when its
 * batch left lines out) lists every line of the batch.
 */
export type ListedProductResult = ProductRepairResult & { linesOmitted?: number; linesFile?: string };

/** The lines with the problems (ambiguous, unmatched, failed) first, each group in its own order. */
export function problemsFirst(lines: readonly LineOutcome[]): LineOutcome[] {
  const problem = (line: LineOutcome) => PROBLEM_OUTCOMES.has(line.outcome);
  return [...lines.filter(problem), ...lines.filter((line) => !problem(line))];
}

/** The push run's last step: totals over every journal, and the rejects file. */

import { basename } from 'node:path';
import { boundMessage, quoteInput } from '../input-limits';
import { stagedRunInputSchema } from '../staging';
import { writeFileAtomically } from '../storage';
import type { z } from 'zod';
import { readExportFile } from './read';
import { writeRejects } from './rejects';
import { runManifestSchema, summarise, type BatchResult, type OrderOutcome, type OrderRun } from './push-run';

export const finishInputSchema = stagedRunInputSchema;
export type FinishInput = z.infer<typeof finishInputSchema>;

export interface FinishOutput {
  /** Its run-data store location (`s3://…` on S3, else the run folder's path); null when no order was rejected. */
  rejectsFile: string | null;
  rejectedRows: number;
  /** The first rejections, for the result and the Web UI (the file has them all). */
  sample: Array<{ orderNumber: string; code: string; message: string }>;
  /** Totals over every journal of the run (the authoritative counts, resumed attempts included). */
  totals: Pick<BatchResult, 'counts' | 'lines' | 'recoveries'>;
  /** The orders' warnings, the first ones (absent from finishes of older workers). */
  warnings?: string[];
  durationMs: number;
}

const SAMPLE_SIZE = 20;

/**
 * Totals from the run's journals and, when orders were rejected, the rejects file: every row of each rejected order
 * in the export's own format with `error_code` and `error_message`, ready to fix and push again.
 */
export async function finishRun(input: FinishInput, run: OrderRun): Promise<FinishOutput> {
  const started = Date.now();
  const manifest = await run.staging.getJson(input.manifest, runManifestSchema);
  const outcomes = await run.outcomes();
  const { counts, lines, recoveries } = summarise(0, outcomes, 0, 0);
  const rejected = outcomes.filter((outcome) => outcome.outcome === 'rejected');
  let rejectsFile: string | null = null;
  let rejectedRows = 0;
  if (rejected.length > 0) {
    // The copy may have been made by another worker (run-data store).
    const sourcePath = (await run.fetch(basename(manifest.sourceCopy))) ?? manifest.sourceCopy;
    const table = await readExportFile(sourcePath, {
      format: manifest.format,
      ...(manifest.sheet ? { sheet: manifest.sheet } : {}),
      ...(manifest.mappedColumns ? { mappedColumns: manifest.mappedColumns } : {}),
    });
    const file = writeRejects(
      table,
      rejected.map((outcome) => {
        const code = outcome.code ?? 'rejected';
        const message = outcome.message ?? 'rejected';
        return { rows: outcome.rows, code, message, problems: outcome.problems ?? [{ code, message }] };
      }),
    );
    await writeFileAtomically(run.file(`rejects${file.extension}`), file.content);
    rejectsFile = await run.publishedLocation(`rejects${file.extension}`);
    rejectedRows = file.rowCount;
  }
  // The staged drafts are spent; journals, manifest and the export copy stay with the run for the record.
  await run.staging.remove(run.key('batches'));
  return {
    rejectsFile,
    rejectedRows,
    sample: rejected.slice(0, SAMPLE_SIZE).map((outcome) => ({
      // Quoted input: a 3 MB order number must not reach the workflow's result.
      orderNumber: quoteInput(outcome.orderNumber),
      code: outcome.code ?? 'rejected',
      message: boundMessage(outcome.message ?? '', 500),
    })),
    totals: { counts, lines, recoveries },
    warnings: firstWarnings(outcomes),
    durationMs: Date.now() - started,
  };
}

function firstWarnings(outcomes: readonly OrderOutcome[]): string[] {
  const warnings = outcomes.flatMap((outcome) =>
    outcome.warning ? [boundMessage(outcome.warning, 500)] : [],
  );
  if (warnings.length <= SAMPLE_SIZE) return warnings;
  return [
    ...warnings.slice(0, SAMPLE_SIZE),
    `and ${warnings.length - SAMPLE_SIZE} more orders with a warning`,
  ];
}

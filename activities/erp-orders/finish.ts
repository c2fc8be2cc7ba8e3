import { basename } from 'node:path';
import { readExportFile, writeRejects } from '../../connectors/erp-orders';
import { writeFileAtomically } from '../../connectors/storage';
import { boundMessage, quoteInput } from '../../connectors/input-limits';
import { summarise } from './apply-batch';
import {
  runManifestSchema,
  type BatchResult,
  type FinishInput,
  type FinishResult,
  type OrderRun,
} from './types';

const SAMPLE_SIZE = 20;

export interface FinishOutput extends FinishResult {
  /** Totals over every journal of the run (the authoritative counts, resumed attempts included). */
  totals: Pick<BatchResult, 'counts' | 'lines' | 'recoveries'>;
}

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
    });
    const file = writeRejects(
      table,
      rejected.map((outcome) => {
        const code = outcome.code ?? 'rejected';
        const message = outcome.message ?? 'rejected';
        return { rows: outcome.rows, code, message, problems: outcome.problems ?? [{ code, message }] };
      }),
    );
    rejectsFile = run.file(`rejects${file.extension}`);
    await writeFileAtomically(rejectsFile, file.content);
    await run.publish(basename(rejectsFile));
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
    durationMs: Date.now() - started,
  };
}

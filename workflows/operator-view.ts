import { setCurrentDetails } from '@temporalio/workflow';
import { counted } from '../connectors/counted';
import { rejectedSaid } from '../connectors/erp-orders/rejected-said';

/**
 * What a job run tells the Temporal Web UI about itself, beside its search attributes: the run's current details
 * (Temporal user metadata, shown on the run's page and by `temporal workflow metadata --workflow-id <id>`) and the
 * one-line summaries its activities carry. Shared by the job workflows so each says it the same way in one call.
 */

export interface OutcomeCounts {
  created: number;
  /** PLM products updated. */
  updated?: number;
  /** ERP orders patched. */
  patched?: number;
  unchanged: number;
  rejected: number;
}

/**
 * Sets the run's current details (Markdown, shown in the Web UI) to the outcome line:
 * `10 created, 2 updated, 5 unchanged, 2 rejected; 3 rows rejected — rejects file: /data/runs/…/rejects.csv` (with an
 * S3 store, the `s3://…` location the finishing activity gives). `rejectedRows` is the result's: a PLM row naming no
 * product is in no count before it, yet in the rejects file. An ERP run says its rows beside the orders they belong
 * to: `orders: 2 created, 0 patched, 0 unchanged, 2 rejected (4 export rows)`.
 */
export function showOutcome(
  counts: OutcomeCounts,
  rejectsFile?: string | null,
  options: {
    dryRun?: boolean;
    noun?: string;
    note?: string;
    rejectedRows?: number;
    /** ERP: the rejected orders' export rows, said beside the orders they belong to (`2 rejected (4 export rows)`). */
    rowsOfRejected?: boolean;
  } = {},
): void {
  const parts = [
    `${counts.created} ${options.dryRun ? 'to create' : 'created'}`,
    ...(counts.updated !== undefined
      ? [`${counts.updated} ${options.dryRun ? 'to update' : 'updated'}`]
      : []),
    ...(counts.patched !== undefined ? [`${counts.patched} ${options.dryRun ? 'to patch' : 'patched'}`] : []),
    `${counts.unchanged} unchanged`,
    `${counts.rejected} rejected`,
  ];
  const rows = options.rejectedRows ?? 0;
  let rejectedRows = '';
  if (options.rowsOfRejected) parts[parts.length - 1] = rejectedSaid(counts.rejected, rows);
  else if (rows > 0) rejectedRows = `; ${counted(rows, 'row')} rejected`;
  const rejects = (counts.rejected > 0 || rows > 0) && rejectsFile ? ` — rejects file: ${rejectsFile}` : '';
  const note = options.note ? ` — ${options.note}` : '';
  setCurrentDetails(
    `${options.noun ? `${options.noun}: ` : ''}${parts.join(', ')}${rejectedRows}${rejects}${note}${options.dryRun ? ' (dry run)' : ''}`,
  );
}

/** Sets the run's current details to what it is doing now (`applying batch 3/5`, `awaiting approval…`). */
export const showDetails = setCurrentDetails;

/** An activity's summary for a batch: `apply batch 3/5` (1-based), with its size when known. */
export function batchSummary(
  verb: string,
  batch: number,
  batchCount: number,
  size?: number,
  noun = 'products',
): string {
  return `${verb} batch ${batch + 1}/${batchCount}${size !== undefined ? `, ${size} ${noun}` : ''}`;
}

import { toCsv, type Column } from '../reports';
import type { RunFolder } from '../staging';
import { writeFileAtomically } from '../storage';
import { MAX_LINES_PER_PRODUCT, MAX_LISTED_LINES, problemsFirst, type ListedProductResult } from './listing';
import type { LineOutcome, ProductRepairResult } from './repair-schemas';

type LineRow = { product: ProductRepairResult; line: LineOutcome };

const LINE_COLUMNS: readonly Column<LineRow>[] = [
  { header: 'productId', value: (row) => row.product.productId },
  { header: 'externalId', value: (row) => row.product.externalId },
  { header: 'headerId', value: (row) => row.line.headerId },
  { header: 'lineId', value: (row) => row.line.lineId },
  { header: 'outcome', value: (row) => row.line.outcome },
  { header: 'componentStyleId', value: (row) => row.line.component?.styleId },
  { header: 'isMainComponent', value: (row) => row.line.component?.isMainComponent },
  { header: 'sourceLineId', value: (row) => row.line.sourceLineId },
  { header: 'basis', value: (row) => row.line.basis },
  { header: 'reason', value: (row) => row.line.reason },
  { header: 'candidates', value: (row) => row.line.candidates?.length },
];

/**
 * The batch's products as its result lists them (see listing.ts). When any line is left out, every line of the
 * batch's products is written to `lines/batch-NNNNN.csv` in the run folder (published to the run-data store, kept
 * after the run), which the products whose lines were cut name as `linesFile`.
 */
export async function listBatchResults(
  run: Pick<RunFolder, 'file' | 'publishedLocation'>,
  batch: number,
  results: readonly ProductRepairResult[],
): Promise<ListedProductResult[]> {
  let room = MAX_LISTED_LINES;
  const listed = results.map((product): ListedProductResult => {
    const keep = Math.max(0, Math.min(product.lines.length, MAX_LINES_PER_PRODUCT, room));
    room -= keep;
    if (keep === product.lines.length) return product;
    const lines = problemsFirst(product.lines).slice(0, keep);
    return { ...product, lines, linesOmitted: product.lines.length - keep };
  });
  if (listed.every((product) => product.linesOmitted === undefined)) return listed;
  const name = `batch-${String(batch).padStart(5, '0')}.csv`;
  const rows = results.flatMap((product) => product.lines.map((line) => ({ product, line })));
  await writeFileAtomically(run.file('lines', name), toCsv({ name: 'Lines', columns: LINE_COLUMNS, rows }));
  const linesFile = await run.publishedLocation('lines', name);
  return listed.map((product) => (product.linesOmitted === undefined ? product : { ...product, linesFile }));
}

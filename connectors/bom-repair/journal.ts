/**
 * Where a BOM repair run keeps its state: the run folder and the layout of its per-batch journal (the fork-time
 * snapshots are in fork-snapshots.ts).
 */
import { z } from 'zod';
import { RunFolder } from '../staging';
import { componentRefSchema, lineViewSchema } from './lines';
import { lineOutcomeSchema, productRepairResultSchema } from './repair-schemas';

const basisSchema = lineOutcomeSchema.shape.basis.unwrap();

/**
 * A line repair about to be written (journalled before its PUT): a retried attempt of the batch, which no longer
 * sees the line as broken once the PUT landed, still reports it as repaired and verifies it against `before`.
 */
const lineWriteSchema = z.strictObject({
  kind: z.literal('intent'),
  productId: z.string(),
  headerId: z.string(),
  sourceHeaderId: z.string(),
  sourceProductId: z.string(),
  lineId: z.string(),
  /** The copy as read before the PUT: the kept values verification compares. */
  before: lineViewSchema,
  component: componentRefSchema,
  sourceLineId: z.string(),
  basis: basisSchema,
});
export type LineWrite = z.infer<typeof lineWriteSchema>;

/**
 * A batch's journal lines: a line repair about to be written (`intent`), and a product settled with its findings
 * (`outcome`, null: nothing to report). A retried attempt skips the settled products and keeps their findings, and
 * for a product not settled it knows the lines already written: a rerun could not see either again (a repaired line
 * no longer looks broken).
 */
const bomRepairEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('outcome'),
    productId: z.string(),
    result: productRepairResultSchema.nullable(),
  }),
  lineWriteSchema,
]);
export type BomRepairEntry = z.infer<typeof bomRepairEntrySchema>;

/**
 * A BOM repair run keeps its staged candidates and one journal per batch in `<dataDir>/runs/<runKey>/`, in the
 * run-data store (with TRACE_STORE_URL=s3://… a batch retried on another worker finds them).
 */
export const bomRepairRun = (dataDir: string, runKey: string): RunFolder<BomRepairEntry> =>
  new RunFolder(dataDir, runKey, [], {
    folder: 'journal',
    schema: bomRepairEntrySchema,
    // A line write is its own record (each stays pending: no outcome settles it), a product's outcome another.
    keyOf: (entry) => (entry.kind === 'intent' ? `${entry.productId} line ${entry.lineId}` : entry.productId),
  });

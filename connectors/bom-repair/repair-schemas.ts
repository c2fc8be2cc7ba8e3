/**
 * What the BOM repair reports (per line, per header, per product) and what it is given per product (a candidate from
 * the detection scan), as zod schemas: they are read back from the run's journal and staged candidates.
 */
import { z } from 'zod';
import { componentRefSchema } from './lines';

/** Per line, what the repair did or would do. */
const lineOutcomeKinds = ['repaired', 'would_repair', 'ambiguous', 'unmatched', 'failed'] as const;
export type LineOutcomeKind = (typeof lineOutcomeKinds)[number];

export const lineOutcomeSchema = z.object({
  headerId: z.string(),
  lineId: z.string(),
  outcome: z.enum(lineOutcomeKinds),
  /** The reference put back (or that would be), for repaired and would_repair. */
  component: componentRefSchema.optional(),
  sourceLineId: z.string().optional(),
  /** Why a line was left alone or failed; the API's code first when it refused the write. */
  reason: z.string().optional(),
  /**
   * What the reference was taken from: `snapshot` (the source as the safe write saw it just before the fork),
   * `source` (the source's current lines, none changed since the fork), or `current source, accepted` (a source
   * line changed after the fork and `acceptCurrentSource` took the source as it stands now).
   */
  basis: z.enum(['snapshot', 'source', 'current source, accepted']).optional(),
  /** For a line left ambiguous: what it could get back, each with where it comes from. */
  candidates: z
    .array(
      z.object({
        /** `fork time`: what the source line held when the fork copied it; null when nobody kept it. */
        basis: z.enum(['fork time', 'current source']),
        component: componentRefSchema.nullable(),
        sourceLineId: z.string(),
        /** When the source line last changed (after the fork). */
        changedAt: z.string().nullish(),
        /** The candidate source BOM, when the header's source is itself ambiguous (`sourceCandidates`). */
        sourceHeaderId: z.string().optional(),
      }),
    )
    .optional(),
});
export type LineOutcome = z.infer<typeof lineOutcomeSchema>;

const headerOutcomeSchema = z.object({
  headerId: z.string(),
  name: z.string(),
  /** Lines of this owned header without a component reference when the run read it. */
  linesWithoutComponent: z.number(),
  sourceHeaderId: z.string().nullable(),
  /** The ancestor through which the source was found. */
  sourceProductId: z.string().nullable(),
  /** Set when the whole header was left alone (no source name, no source, two candidate sources). */
  problem: z.string().optional(),
  /** When the source is ambiguous: each BOM of the source's name and the ancestor holding it, nearest first. */
  sourceCandidates: z.array(z.object({ headerId: z.string(), productId: z.string() })).optional(),
  /** A snapshot kept for this product and source that is not this fork's record, and why (the source stood in). */
  snapshotSetAside: z.string().optional(),
  /**
   * Repairs (planned or written) rest on something the platform cannot show (a source line deleted after the fork
   * leaves no trace): what, and what to check. The product's `verified` is then false, never claimed.
   */
  unverifiable: z.string().optional(),
});
export type HeaderOutcome = z.infer<typeof headerOutcomeSchema>;

export const productRepairResultSchema = z.object({
  productId: z.string(),
  externalId: z.string().nullable(),
  repaired: z.number(),
  wouldRepair: z.number(),
  ambiguous: z.number(),
  unmatched: z.number(),
  failed: z.number(),
  /** After writes: the re-read showed every repaired line as intended and nothing else changed. */
  verified: z.boolean().nullable(),
  /** Set when the product itself could not be handled (a BOM of it whose lines are never read whole, naming it). */
  problem: z.string().optional(),
  headers: z.array(headerOutcomeSchema),
  lines: z.array(lineOutcomeSchema),
});
export type ProductRepairResult = z.infer<typeof productRepairResultSchema>;

/** A product that owns BOM headers and might hold a fork (from the detection scan). */
export const repairCandidateSchema = z.object({
  id: z.string().min(1),
  externalId: z.string().nullable(),
  /** The parent style of a variant or SKU (null on a style). */
  styleId: z.string().nullish(),
  /** The parent variant of a SKU (null otherwise). */
  variantId: z.string().nullish(),
  ownedHeaders: z.array(
    z.object({
      id: z.string().min(1),
      name: z.string(),
      /** When the header was made: for a fork, the fork time (what the source looked like then is what was copied). */
      createdAt: z.string().nullish(),
    }),
  ),
});
export type RepairCandidate = z.infer<typeof repairCandidateSchema>;

import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { stagingRefSchema, type StagingRef } from '../staging';
import type { TraceabilityClient } from '../traceability';
import { writeHeldBack, type HeldBackList } from '../held-back';
import { compositionText, currentValues } from './approval-plan';
import {
  compositionStepSchema,
  manifestSchema,
  plmRun,
  writeStepSchema,
  type CompositionStep,
  type Manifest,
  type WriteStep,
} from './staged-run';

/**
 * Plan, then approve (PLM import), after approval: the fresh plan compared with the approved snapshot
 * (approval-plan.ts), so a product changed on the platform in between is held back and reported instead of written.
 */

export const holdBackInputSchema = z.strictObject({
  runKey: z.string().min(1),
  /** The fresh plan's manifest, made after approval. */
  manifest: stagingRefSchema,
  approved: stagingRefSchema,
});
export type HoldBackInput = z.infer<typeof holdBackInputSchema>;

export interface Replanned {
  externalId: string;
  /** What was approved (`none` when the product needed no write then). */
  approved: string;
  /** What the fresh plan wants now. */
  now: string;
}

/** Products whose write differs from the approved one: not written, reported (the first ones; every one in the file). */
export interface HoldBackResult extends HeldBackList<Replanned> {
  manifest: StagingRef;
  batchCount: number;
  /** Product writes held back, by action (the fresh plan's counts less these are the writes applied). */
  heldBack: { create: number; update: number };
}

function describe(step: WriteStep | undefined): string {
  if (!step) return 'none';
  if (step.action === 'create') return 'create';
  return `update ${step.changedFields.join(', ')}${step.release ? ' (first of two writes, a swap)' : ''}`;
}

/**
 * The approved write and the fresh one are the same write. A plan approved before steps carried `takesFreed` lacks
 * it: that alone is no change (the codes the product takes are in its body either way).
 */
export function sameWrite(was: WriteStep | undefined, now: WriteStep): boolean {
  if (was === undefined) return false;
  if (was.takesFreed !== undefined || now.takesFreed === undefined) return isDeepStrictEqual(was, now);
  const { takesFreed: _new, ...rest } = now;
  return isDeepStrictEqual(was, rest);
}

/** A product's write, told from its other one in a ring (a swap writes a product twice). */
const stepKey = (step: WriteStep): string =>
  step.action === 'update' && step.release ? `${step.externalId}\u0000release` : step.externalId;

/** A line of the approved steps: when each product was last updated as approved (`seenAt`), a composition, or a write. */
const approvedLineSchema = z.union([
  z.strictObject({ seenAt: z.record(z.string(), z.string().nullable()) }),
  z.strictObject({ composition: compositionStepSchema }),
  writeStepSchema,
]);

/**
 * Compares the fresh plan with the approved one and stages batches holding only the writes that were approved
 * exactly as they are now: a product whose write changed (the platform changed in between) is held back.
 */
export async function holdBackChangedSteps(
  input: HoldBackInput,
  dataDir: string,
  client: TraceabilityClient,
): Promise<HoldBackResult> {
  const run = plmRun(dataDir, input.runKey);
  const manifest = await run.staging.getJson(input.manifest, manifestSchema);
  const approved = new Map<string, WriteStep>();
  const approvedCompositions = new Map<string, CompositionStep>();
  let seenAt: Record<string, string | null> = {};
  for await (const line of run.staging.readNdjson(input.approved, approvedLineSchema)) {
    if ('seenAt' in line) seenAt = line.seenAt;
    else if ('composition' in line) approvedCompositions.set(line.composition.externalId, line.composition);
    else approved.set(stepKey(line), line);
  }
  /** The same write can still overwrite someone's edit (name Old → New approved, now Other → New): updatedAt tells. */
  const unchangedSince = async (step: WriteStep): Promise<boolean> => {
    const seen = seenAt[step.externalId];
    if (step.action !== 'update' || seen === undefined) return true;
    const now = await currentValues(client, step.externalId);
    return now !== undefined && (typeof now.updatedAt === 'string' ? now.updatedAt : null) === seen;
  };
  const replanned: Replanned[] = [];
  const seen = new Set<string>();
  const batches: Manifest['batches'] = [];
  const counts = { ...manifest.counts };
  const heldCounts = { create: 0, update: 0 };
  const heldBack = new Set<string>();
  const stage = async (index: number, batch: Manifest['batches'][number], kept: readonly unknown[]) => {
    if (kept.length === 0) return;
    const ref = await run.staging.putNdjson(
      run.key(`approved-batch-${String(index).padStart(5, '0')}.ndjson`),
      kept,
    );
    batches.push({ level: batch.level, kind: batch.kind, ref });
  };
  /** Whether a product write goes as approved: the same write, and the product unchanged on the platform since. */
  const asApproved = async (step: WriteStep): Promise<boolean> => {
    const was = approved.get(stepKey(step));
    return was !== undefined && sameWrite(was, step) && (await unchangedSince(step));
  };
  // A ring's writes (a swap) go together or not at all: one of its products written alone, or its first write without
  // the rest, would leave a product without the code it gave up. Decided first, as a ring spans batches.
  const ringDecisions = new Map<string, boolean>();
  const heldRings = new Set<string>();
  for (const batch of manifest.batches) {
    if (batch.kind !== 'products') continue;
    for await (const step of run.staging.readNdjson(batch.ref, writeStepSchema)) {
      if (step.action !== 'update' || step.ring === undefined) continue;
      const kept = await asApproved(step);
      ringDecisions.set(stepKey(step), kept);
      if (!kept) heldRings.add(step.ring);
    }
  }
  // Product batches come first in the manifest, so a product held back is known before its composition is seen.
  for (const [index, batch] of manifest.batches.entries()) {
    if (batch.kind === 'compositions') {
      // A composition is written only as approved, and not for a product whose own write was held back.
      const kept: CompositionStep[] = [];
      for await (const step of run.staging.readNdjson(batch.ref, compositionStepSchema)) {
        seen.add(`composition:${step.externalId}`);
        const was = approvedCompositions.get(step.externalId);
        const same =
          was !== undefined &&
          isDeepStrictEqual(was.desired, step.desired) &&
          isDeepStrictEqual(was.ops, step.ops);
        if (same && !heldBack.has(step.externalId)) kept.push(step);
        else
          replanned.push({
            externalId: step.externalId,
            approved: was ? `composition ${compositionText(was)}` : 'none',
            now: `composition ${compositionText(step)}${same ? ' (held back with its product)' : ''}`,
          });
      }
      await stage(index, batch, kept);
      continue;
    }
    const kept: WriteStep[] = [];
    for await (const step of run.staging.readNdjson(batch.ref, writeStepSchema)) {
      seen.add(stepKey(step));
      const was = approved.get(stepKey(step));
      const ring = step.action === 'update' ? step.ring : undefined;
      const own = ring === undefined ? await asApproved(step) : ringDecisions.get(stepKey(step)) === true;
      if (own && !(ring !== undefined && heldRings.has(ring))) kept.push(step);
      else {
        heldBack.add(step.externalId);
        // A release is no product of its own: the row of its product's second write (held back with it) says it.
        if (step.action === 'update' && step.release) continue;
        replanned.push({
          externalId: step.externalId,
          approved: describe(was),
          now: !own
            ? sameWrite(was, step)
              ? `${describe(step)} (changed on the platform since the plan)`
              : describe(step)
            : `${describe(step)} (held back with the other products of its swap)`,
        });
        counts[step.action] -= 1;
        heldCounts[step.action] += 1;
      }
    }
    await stage(index, batch, kept);
  }
  for (const [externalId, step] of approvedCompositions)
    if (!seen.has(`composition:${externalId}`))
      replanned.push({ externalId, approved: `composition ${compositionText(step)}`, now: 'none' });
  for (const [key, step] of approved)
    // An approved release gone from the plan is told by the row of its product's second write.
    if (!seen.has(key) && !(step.action === 'update' && step.release))
      replanned.push({ externalId: step.externalId, approved: describe(step), now: 'none' });
  const ref = await run.staging.putJson(run.key('approved-manifest.json'), {
    ...manifest,
    batches,
    counts,
  } satisfies Manifest);
  const listed = await writeHeldBack(
    run,
    [
      { header: 'externalId', value: (r) => r.externalId },
      { header: 'approved', value: (r) => r.approved },
      { header: 'now', value: (r) => r.now },
    ],
    replanned,
  );
  return { manifest: ref, batchCount: batches.length, heldBack: heldCounts, ...listed };
}

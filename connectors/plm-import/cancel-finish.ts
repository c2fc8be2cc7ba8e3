import type { ApiCalls, Progress } from '../staging';
import { applyBatch } from './apply';
import { finishWrites, unrefused, type Journalled } from './finish-writes';
import { manifestSchema, writeStepSchema, type ApplyInput, type PlmRun } from './staged-run';

/**
 * The cancel's finish of the PLM import: a run cancelled with a ring (swap) or a code move begun writes the rest of it
 * before it stops, so no product is left without the codes it gave up. What those writes come to in result.json
 * (`ringsFinished`, `chainsFinished`) is finish.ts; how the run's details name them is rings-said.ts.
 */

/** The rings (swaps) a cancelled run wrote whole before it stopped (none of their products refused): their products, the freed one first. */
export interface FinishedRings {
  rings: string[][];
  /**
   * The code moves whose takers the finish wrote (a giver written, its taker not yet), each its products in the order
   * written, givers first, none refused; a ring's product that takes a code from outside its ring is named here too,
   * beside its ring. Absent from results of runs that predate it.
   */
  chains?: string[][];
  apiCalls: number;
  durationMs: number;
}

/**
 * A run cancelled between a ring's first write (its freed product without the codes it takes) and its last would leave
 * that product without the codes it gave up, so the rest of every ring begun is written before the run stops: only
 * those products and the products outside it whose codes they take (a chain into the ring), batch by batch in the
 * plan's order (each taker after its giver), from `from` (the batch the cancel stopped: its settled products are
 * skipped). A ring is begun once its first write is journalled or under way. A ring not begun is written whole too
 * when a product the finish writes takes a code from its freed product.
 */
export async function finishRings(
  input: ApplyInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
): Promise<FinishedRings> {
  const started = Date.now();
  const { manifest } = await run.stagedBatch(input.manifest, manifestSchema, input.batch);
  // A plan that moves no code (most): nothing to finish, and no batch of a large import read for it.
  // (A plan staged before the manifest counted takers has no count: its batches are read, so its moves are finished.)
  if (manifest.releases === 0 && manifest.takers === 0)
    return { rings: [], chains: [], apiCalls: api.count, durationMs: Date.now() - started };
  const batches = await Promise.all(
    manifest.batches.map(async (entry) =>
      entry.kind === 'compositions' ? [] : await run.staging.readAllNdjson(entry.ref, writeStepSchema),
    ),
  );
  // Each batch's journal read once, and only a batch from the stopped one on that holds a ring's step.
  const journals = new Map<number, ReturnType<ReturnType<PlmRun['journal']>['resume']>>();
  const resumed = (index: number) => {
    const journal = journals.get(index) ?? run.journal(index).resume();
    journals.set(index, journal);
    return journal;
  };
  const begun = new Set<string>();
  for (const [index, steps] of batches.entries()) {
    if (index > input.batch) break;
    const releases = steps.flatMap((step) =>
      step.action === 'update' && step.release && step.ring !== undefined ? [step] : [],
    );
    if (releases.length === 0) continue;
    const journal = index === input.batch ? await resumed(index) : undefined;
    for (const step of releases)
      if (!journal || journal.done.has(step.externalId) || journal.pending.has(step.externalId))
        begun.add(step.ring as string);
  }
  // The journals finishWrites reads: the stopped batch's, and a later batch's holding a begun ring's product.
  const journalled = new Map<number, Journalled>();
  for (const [index, steps] of batches.entries())
    if (
      index === input.batch
        ? steps.length > 0
        : index > input.batch &&
          steps.some((step) => step.action === 'update' && step.ring !== undefined && begun.has(step.ring))
    )
      journalled.set(index, (await resumed(index)).done);
  const written = new Set(
    (await run.outcomes())
      .filter((outcome) => outcome.target === undefined && outcome.outcome !== 'rejected')
      .map((outcome) => outcome.externalId),
  );
  const writes = finishWrites({ batches, stopped: input.batch, begun, journalled, written });
  const { writing } = writes;
  for (let batch = input.batch; batch < batches.length && writing.size > 0; batch++)
    if (batches[batch]?.some((step) => writing.has(step.externalId)))
      await applyBatch({ ...input, batch }, run, api, progress, undefined, writing);
  const refused = new Set(
    writing.size === 0
      ? []
      : (await run.outcomes())
          .filter((outcome) => outcome.target === undefined && outcome.outcome === 'rejected')
          .map((outcome) => outcome.externalId),
  );
  return {
    ...unrefused(writes, refused),
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}

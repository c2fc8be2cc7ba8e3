import type { ApiCalls, Progress } from '../staging';
import { applyBatch } from './apply';
import { manifestSchema, writeStepSchema, type ApplyInput, type PlmRun, type WriteStep } from './staged-run';

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
  // Every ring's products in the plan's order (the freed one first), and the ring of each; a begun ring is left to
  // write when one of its products is not journalled yet.
  const members = new Map<string, Set<string>>();
  const ringOf = new Map<string, string>();
  const left = new Set<string>();
  const writing = new Set<string>();
  for (const [index, steps] of batches.entries()) {
    const ringSteps = steps.flatMap((step) =>
      step.action === 'update' && step.ring !== undefined
        ? [{ externalId: step.externalId, ring: step.ring }]
        : [],
    );
    if (ringSteps.length === 0) continue;
    const done =
      index >= input.batch && ringSteps.some(({ ring }) => begun.has(ring))
        ? (await resumed(index)).done
        : undefined;
    for (const { externalId, ring } of ringSteps) {
      ringOf.set(externalId, ring);
      const names = members.get(ring) ?? new Set<string>();
      members.set(ring, names.add(externalId));
      if (begun.has(ring) && done && !done.has(externalId)) left.add(ring);
    }
  }
  for (const ring of left) for (const externalId of members.get(ring) ?? []) writing.add(externalId);
  const inRings = new Set(writing);
  // The steps not written yet: the stopped batch's not journalled, and every later one's (only this finish writes
  // there, so a retry of it finds what it wrote before among them).
  const stopped = batches[input.batch] ?? [];
  const stoppedDone = stopped.length > 0 ? (await resumed(input.batch)).done : new Set<string>();
  const later = [
    ...stopped.filter((step) => !stoppedDone.has(step.externalId)),
    ...batches.slice(input.batch + 1).flat(),
  ];
  const unwritten = new Set(later.map((step) => step.externalId));
  // Products the run wrote before it stopped: a giver among them has given its code up.
  const givenUp = new Set(
    (await run.outcomes())
      .filter(
        (outcome) =>
          outcome.target === undefined &&
          outcome.outcome !== 'rejected' &&
          !unwritten.has(outcome.externalId),
      )
      .map((outcome) => outcome.externalId),
  );
  // A ring's product may also take a code from a product outside it (the end of a chain into the ring), written in a
  // batch of its own: that one first, as its own givers, or the ring's write would meet the code still held. And a
  // taker of a code a written product gave up (a chain, no ring in it) is written too, and the takers of its own
  // codes in turn, or the code would belong to no product until the sheet is run again. So is a product outside a
  // ring that takes a code its freed product gave up in its early write (`takesFreed`), and a ring not begun whose
  // freed product gives a code to such a taker.
  // One pass over a work list (each product once), not a loop over every step until nothing grows: a chain of
  // thousands of moves into a ring would otherwise be walked once per product in it.
  const stepsOf = new Map<string, WriteStep[]>();
  const takersOf = new Map<string, string[]>();
  const add = <T>(map: Map<string, T[]>, key: string, value: T): void => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const step of later) {
    add(stepsOf, step.externalId, step);
    for (const { giver } of [...(step.takes ?? []), ...(step.takesFreed ?? [])])
      add(takersOf, giver, step.externalId);
  }
  const queue = [...writing];
  const write = (externalId: string): void => {
    if (writing.has(externalId)) return;
    writing.add(externalId);
    queue.push(externalId);
    // A product of a ring not begun is written with its whole ring (its freed product's early write first), and
    // named as such.
    const ring = ringOf.get(externalId);
    if (ring === undefined || left.has(ring) || !unwritten.has(externalId)) return;
    left.add(ring);
    for (const member of members.get(ring) ?? []) {
      inRings.add(member);
      write(member);
    }
  };
  for (const giver of givenUp) for (const taker of takersOf.get(giver) ?? []) write(taker);
  for (let at = 0; at < queue.length; at++) {
    const externalId = queue[at] as string;
    for (const taker of takersOf.get(externalId) ?? []) write(taker);
    for (const step of stepsOf.get(externalId) ?? []) {
      for (const { giver } of step.takes ?? []) if (unwritten.has(giver)) write(giver);
      // A taker written here that also takes a code from the freed product of a ring not begun: that product still
      // holds the code, so the ring is written whole first, or the taker's write would be refused (codes_not_unique)
      // and the code it takes from the written product held by none.
      for (const { giver } of step.takesFreed ?? []) if (unwritten.has(giver)) write(giver);
    }
  }
  const chained = [...writing].filter((externalId) => !inRings.has(externalId));
  for (let batch = input.batch; batch < batches.length && writing.size > 0; batch++)
    if (batches[batch]?.some((step) => writing.has(step.externalId)))
      await applyBatch({ ...input, batch }, run, api, progress, undefined, writing);
  // A ring whose product the API refused here was put back, not written whole: its rows' rejects say so.
  const refused = new Set(
    writing.size === 0
      ? []
      : (await run.outcomes())
          .filter((outcome) => outcome.target === undefined && outcome.outcome === 'rejected')
          .map((outcome) => outcome.externalId),
  );
  return {
    rings: [...left]
      .map((ring) => [...(members.get(ring) ?? [])])
      .filter((products) => !products.some((externalId) => refused.has(externalId))),
    chains: chainsOf(chained, later, givenUp, inRings, batches.flat()).filter(
      (products) => !products.some((externalId) => refused.has(externalId)),
    ),
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}

/**
 * The code moves a cancel's finish wrote, but those inside a ring: each set of `chained` products linked by the codes
 * they take, with the givers written before the run stopped (`givenUp`) and the ring products taking a code from
 * them, in the plan's order (givers first).
 */
function chainsOf(
  chained: readonly string[],
  steps: readonly WriteStep[],
  givenUp: ReadonlySet<string>,
  inRings: ReadonlySet<string>,
  plan: readonly WriteStep[],
): string[][] {
  const root = new Map<string, string>();
  const find = (id: string): string => {
    let top = id;
    while (root.get(top) !== undefined && root.get(top) !== top) top = root.get(top) as string;
    // Every product on the way points at the top: a chain of 50,000 moves stays linear, not quadratic.
    for (let at = id; at !== top;) {
      const next = root.get(at) as string;
      root.set(at, top);
      at = next;
    }
    return top;
  };
  const join = (a: string, b: string) => root.set(find(a), find(b));
  for (const id of chained) root.set(id, id);
  for (const step of steps) {
    // A ring's product taking a code a product outside the ring gave up: that move, named beside the ring.
    if (
      !root.has(step.externalId) &&
      inRings.has(step.externalId) &&
      (step.takes ?? []).some(({ giver }) => !inRings.has(giver) && (root.has(giver) || givenUp.has(giver)))
    )
      root.set(step.externalId, step.externalId);
    if (!root.has(step.externalId)) continue;
    // A taker of a ring's freed product: the move from that product, named beside the ring.
    for (const { giver } of step.takesFreed ?? []) {
      if (!inRings.has(giver) || inRings.has(step.externalId)) continue;
      if (!root.has(giver)) root.set(giver, giver);
      join(step.externalId, giver);
    }
    for (const { giver } of step.takes ?? []) {
      if (inRings.has(giver) || !(root.has(giver) || givenUp.has(giver))) continue;
      if (!root.has(giver)) root.set(giver, giver);
      join(step.externalId, giver);
    }
  }
  const position = new Map<string, number>();
  for (const [at, step] of plan.entries())
    if (!position.has(step.externalId)) position.set(step.externalId, at);
  const groups = new Map<string, string[]>();
  for (const id of root.keys()) {
    const top = find(id);
    const group = groups.get(top);
    if (group) group.push(id);
    else groups.set(top, [id]);
  }
  return [...groups.values()]
    .map((group) => group.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)))
    .sort((a, b) => (position.get(a[0] ?? '') ?? 0) - (position.get(b[0] ?? '') ?? 0));
}

import type { WriteStep } from './staged-run';

/** A batch's journalled products: a journal's `done` (keyed by product) or a set. */
export type Journalled = Pick<ReadonlySet<string>, 'has'>;

/** Where a cancelled PLM run stands, as its finish (cancel-finish.ts) reads it from its plan, journals and outcomes. */
export interface StoppedRun {
  /** The plan's batches in order, a compositions batch as none. */
  batches: readonly (readonly WriteStep[])[];
  /** The batch the cancel stopped. */
  stopped: number;
  /** The rings (swaps) begun: their freed product's first write journalled or under way. */
  begun: ReadonlySet<string>;
  /**
   * The products journalled in the stopped batch and in each later one holding a begun ring's product (a batch not
   * here: none journalled). A later batch's are only this finish's own, written before a retry of it.
   */
  journalled: ReadonlyMap<number, Journalled>;
  /** The products the run's outcomes hold written (not refused); a composition's outcome is none. */
  written: ReadonlySet<string>;
}

/** What a cancel's finish writes, and how it names what it wrote before any refusal is known. */
export interface FinishWrites {
  /** The products to write, batch by batch from the stopped one. */
  writing: ReadonlySet<string>;
  /** The rings written whole: their products in the plan's order, the freed one first. */
  rings: string[][];
  /** The code moves written (each its products in the plan's order, givers first), a ring's named beside it. */
  chains: string[][];
}

/** `value` appended to `key`'s list. */
function add<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The rest of every ring begun, the takers of the codes a product written before the stop gave up (and of theirs in
 * turn), the givers outside a ring its products take from, and a ring not begun whose freed product gives a code to a
 * product written here (whole, its freed product's early write first).
 */
export function finishWrites(run: StoppedRun): FinishWrites {
  const { batches, stopped, begun, journalled } = run;
  const none: Journalled = new Set<string>();
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
      index >= stopped && ringSteps.some(({ ring }) => begun.has(ring))
        ? (journalled.get(index) ?? none)
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
  const stoppedDone = journalled.get(stopped) ?? none;
  const later = [
    ...(batches[stopped] ?? []).filter((step) => !stoppedDone.has(step.externalId)),
    ...batches.slice(stopped + 1).flat(),
  ];
  const unwritten = new Set(later.map((step) => step.externalId));
  // Products the run wrote before it stopped: a giver among them has given its code up.
  const givenUp = new Set([...run.written].filter((externalId) => !unwritten.has(externalId)));
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
  return {
    writing,
    rings: [...left].map((ring) => [...(members.get(ring) ?? [])]),
    chains: chainsOf(chained, later, givenUp, inRings, batches.flat()),
  };
}

/**
 * The rings and code moves a finish names once written: a ring whose product the API refused was put back, not
 * written whole (its rows' rejects say so), and a move with a refused product did not happen.
 */
export function unrefused(
  writes: FinishWrites,
  refused: ReadonlySet<string>,
): { rings: string[][]; chains: string[][] } {
  const whole = (products: readonly string[]) => !products.some((externalId) => refused.has(externalId));
  return { rings: writes.rings.filter(whole), chains: writes.chains.filter(whole) };
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
  for (const id of root.keys()) add(groups, find(id), id);
  return [...groups.values()]
    .map((group) => group.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)))
    .sort((a, b) => (position.get(a[0] ?? '') ?? 0) - (position.get(b[0] ?? '') ?? 0));
}

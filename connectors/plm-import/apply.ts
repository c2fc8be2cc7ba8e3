import type { ApiCalls, Progress } from '../staging';
import type { BatchJournal, StagingRef } from '../staging';
import { refusesRecord, type TraceabilityApiError } from '../traceability';
import { readBack } from './catalogue';
import { giverRejectedMessage, refusedGivers } from './code-moves';
import { CompositionDeleteError, compositionOps, readOwned, runOp } from './composition';
import { immutableProblem } from './plan';
import { updateBody } from './product-bodies';
import {
  compositionStepSchema,
  manifestSchema,
  writeStepSchema,
  type ApplyInput,
  type BatchResult,
  type CompositionStep,
  type CreateWrite,
  type JournalEntry,
  type Outcome,
  type PlmRun,
  type WriteStep,
} from './staged-run';

/**
 * The PLM import's writes: one staged batch at a time (products, then their material compositions), each product's
 * outcome journalled as it settles. What the outcomes come to (totals, rejects file, result.json) is finish.ts; the
 * rest of a ring or code move a cancel stopped in is written by cancel-finish.ts.
 */

/**
 * Products written at once within a batch, more where the key's allowance over the round trips asks for more
 * (`ApiCalls.lanes`); the client paces and bounds the requests themselves.
 */
const LANES = 8;

/** API answers after which a create is re-read: the product may exist already (our own lost write, or older). */
const EXISTS_CODES = new Set(['external_id_already_exists', 'codes_not_unique']);

interface StepContext {
  api: ApiCalls;
  journal: BatchJournal<JournalEntry>;
  /**
   * Products rejected in earlier batches: their children are rejected without a call, and so are the products taking
   * a code from them (they still hold it).
   */
  rejectedParents: ReadonlyMap<string, Outcome>;
  /** Writes an earlier attempt of this batch began and did not settle. */
  pending: ReadonlyMap<string, { write: 'create' | 'update' }>;
}

function outcome(
  step: WriteStep | CompositionStep,
  kind: Outcome['outcome'],
  extra: Partial<Outcome> = {},
): Outcome {
  return {
    kind: 'outcome',
    externalId: step.externalId,
    level: step.level,
    outcome: kind,
    id: null,
    rowNumbers: step.rowNumbers,
    ...extra,
  };
}

function rejection(step: WriteStep, error: TraceabilityApiError): Outcome {
  return outcome(step, 'rejected', {
    code: error.code,
    message: `the API refused '${step.externalId}' (${error.statusCode} ${error.code}): ${error.message}`,
    column: null,
  });
}

/** Sends one write: undefined once done, the product's rejection on a row-level answer (anything else is thrown). */
async function rejectedBy(step: WriteStep, write: () => Promise<unknown>): Promise<Outcome | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    if (refusesRecord(error)) return rejection(step, error);
    throw error;
  }
}

/** A create met an existing product: re-read it and make it match (or reject it when it cannot be that product). */
async function convergeExisting(
  step: CreateWrite,
  error: TraceabilityApiError,
  context: StepContext,
): Promise<Outcome> {
  const found = await readBack(context.api, step);
  if (!found) return rejection(step, error);
  const mismatch = immutableProblem(
    { ...step, isComponent: step.isComponentFromMapping ? undefined : step.body.isComponent },
    found.product,
    found.parentExternalId,
  );
  if (mismatch)
    return outcome(step, 'rejected', {
      id: found.product.id,
      code: 'immutable_field_changed',
      message: mismatch,
      column: null,
    });
  // Our own create whose answer was lost (the client says so), or that an attempt killed mid-write had begun.
  const own = error.maybeCommitted || context.pending.get(step.externalId)?.write === 'create';
  const recovered = own ? 'own_write' : 'existing_product';
  // The PUT a planned update would send: a code type the sheet gives replaces the product's (desiredCodes).
  const codes = step.body.codes.map((code) => ({ ...code, givesTypes: step.givesTypes }));
  const { body, changed } = updateBody(
    { ...step.body, codes, styleLevelId: step.styleLevelId },
    found.product,
  );
  if (changed.length === 0)
    return outcome(step, own ? 'created' : 'unchanged', { id: found.product.id, recovered });
  const refused = await rejectedBy(step, () =>
    context.api.one(() => context.api.client.products.update(found.product.id, body)),
  );
  return refused ?? outcome(step, own ? 'created' : 'updated', { id: found.product.id, recovered });
}

async function applyCreate(step: CreateWrite, context: StepContext): Promise<Outcome> {
  let id: string;
  let createdLevel: string | null | undefined;
  try {
    const created = await context.api.one(() => context.api.client.products.create(step.body));
    ({ id, styleLevelId: createdLevel } = created);
  } catch (error) {
    if (!refusesRecord(error)) throw error;
    if (EXISTS_CODES.has(error.code)) return convergeExisting(step, error, context);
    return rejection(step, error);
  }
  // The create body cannot carry styleLevelId (spec: settable on update), and a style gets one ("string", never null):
  // the PUT only when the level it got is not the sheet's. A failure here is the row's.
  const { styleLevelId } = step;
  const refused =
    styleLevelId === undefined || styleLevelId === createdLevel
      ? undefined
      : await rejectedBy(step, () =>
          context.api.one(() => context.api.client.products.update(id, { styleLevelId })),
        );
  return refused ? { ...refused, id } : outcome(step, 'created', { id });
}

/**
 * The second write of a product freed in a ring (a swap) was refused: its first one gave its codes up, so it gets them
 * back where they are still free (a product of the ring refused, its code never taken), rather than ending without.
 */
async function restored(
  step: WriteStep,
  codes: Array<{ codeId: string; codeValue: string }>,
  refused: Outcome,
  context: StepContext,
): Promise<Outcome> {
  if (step.action !== 'update') return refused;
  const again = await rejectedBy(step, () =>
    context.api.one(() => context.api.client.products.update(step.id, { codes })),
  );
  const note = again
    ? `; its codes were given up for a swap with other rows and could not be put back (${again.code ?? 'refused'}): it holds only those no other product took`
    : '; the codes it held before the run were put back (it had given them up for a swap with other rows)';
  return { ...refused, message: `${refused.message ?? ''}${note}` };
}

/**
 * A product taking codes from products of the sheet refused in an earlier batch: those still hold them, so its write is
 * bound to be refused (codes_not_unique, naming neither row). Its rejection names the givers' rows instead.
 */
function giversRefused(step: WriteStep, context: StepContext): Outcome | undefined {
  const refused = refusedGivers(step.takes ?? [], (giver) => {
    const rejected = context.rejectedParents.get(giver);
    return rejected && rejected.target === undefined ? (rejected.code ?? 'rejected') : undefined;
  });
  const first = refused[0];
  if (first === undefined) return undefined;
  const kept =
    step.action === 'update' && step.restoreCodes
      ? ''
      : `: '${step.externalId}' was not written and keeps its codes`;
  return outcome(step, 'rejected', {
    code: 'code_giver_rejected',
    message: giverRejectedMessage(step.externalId, refused, 'write', kept),
    column: first.column,
  });
}

async function applyStep(step: WriteStep, context: StepContext): Promise<Outcome> {
  const parentRejected =
    step.parentExternalId === null ? undefined : context.rejectedParents.get(step.parentExternalId);
  if (parentRejected) {
    return outcome(step, 'rejected', {
      code: 'invalid_parent',
      message: `parent '${step.parentExternalId}' was rejected (${parentRejected.code ?? 'error'}), so '${step.externalId}' is not imported either`,
      column: step.parentColumn,
    });
  }
  const givers = giversRefused(step, context);
  if (givers && step.action === 'create') return givers;
  await context.journal.append({ kind: 'intent', externalId: step.externalId, write: step.action });
  if (step.action === 'create') return applyCreate(step, context);
  let refused =
    givers ??
    (Object.keys(step.body).length === 0
      ? undefined
      : await rejectedBy(step, () =>
          context.api.one(() => context.api.client.products.update(step.id, step.body)),
        ));
  if (refused && step.restoreCodes) refused = await restored(step, step.restoreCodes, refused, context);
  if (refused && step.unarchive)
    // unarchiveAll ran before the PUT: the product is live again whatever the PUT's answer.
    return {
      ...refused,
      id: step.id,
      unarchived: true,
      message: `${refused.message ?? ''}; '${step.externalId}' was unarchived by this run, it stays live; its fields were not updated`,
    };
  return (
    refused ?? outcome(step, 'updated', { id: step.id, ...(step.unarchive ? { unarchived: true } : {}) })
  );
}

/**
 * Archived products the run unarchives (option `unarchive`), up to 100 ids a call, children left archived: the sheet
 * names the children it wants back. Unarchiving an unarchived product changes nothing, so a retry is harmless.
 */
async function unarchiveAll(steps: readonly WriteStep[], api: ApiCalls): Promise<void> {
  const ids = steps.flatMap((step) => (step.action === 'update' && step.unarchive ? [step.id] : []));
  for (let start = 0; start < ids.length; start += 100) {
    const chunk = ids.slice(start, start + 100);
    await api.one(() => api.client.products.unarchive(chunk, { shouldUnarchiveChildren: false }));
  }
}

/**
 * Writes one product's composition change. A step an earlier attempt began is planned again from a fresh read, so
 * a retry never adds a header or line twice. A row-level API answer (a percentage sum over 100, say) rejects the
 * composition's rows with the API's code; the product itself stays as written.
 */
async function applyComposition(
  step: CompositionStep,
  productId: string,
  context: StepContext,
): Promise<Outcome> {
  const began = context.pending.has(step.externalId);
  await context.journal.append({
    kind: 'intent',
    externalId: step.externalId,
    write: step.id === null ? 'create' : 'update',
  });
  const composition = { target: 'composition' as const, id: productId };
  try {
    const ops =
      began && step.detachesWith === undefined
        ? compositionOps(step.desired, await readOwned(context.api, productId), step.inherited, step.scope)
        : step.ops;
    for (const op of ops) await runOp(context.api, productId, op, { productIsNew: step.id === null });
    const kind = ops.length === 0 ? 'unchanged' : step.id === null ? 'created' : 'updated';
    return outcome(step, kind, composition);
  } catch (error) {
    if (error instanceof CompositionDeleteError)
      return outcome(step, 'rejected', {
        ...composition,
        code: error.code,
        message: `the composition of '${step.externalId}' is not as the sheet gives it: ${error.message}; re-run the import to retry`,
        column: step.column,
      });
    if (!refusesRecord(error)) throw error;
    return outcome(step, 'rejected', {
      ...composition,
      code: error.code,
      message: `the API refused the composition of '${step.externalId}' (${error.statusCode} ${error.code}): ${error.message}`,
      column: step.column,
    });
  }
}

async function applyCompositionBatch(
  input: ApplyInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
  ref: StagingRef,
  stop: AbortSignal | undefined,
): Promise<BatchResult> {
  const started = Date.now();
  const steps = await run.staging.readAllNdjson(ref, compositionStepSchema);
  const products = new Map<string, Outcome>();
  for (const earlier of await run.outcomes(input.batch))
    if (earlier.target === undefined) products.set(earlier.externalId, earlier);
  const journal = run.journal(input.batch);
  const { done, pending } = await journal.resume();
  const context: StepContext = { api, journal, rejectedParents: new Map(), pending };
  const outcomes = await journal.settleAll(
    done,
    steps.filter((step) => !done.has(step.externalId)),
    api.lanes(LANES),
    async (step) => {
      const product = products.get(step.externalId);
      const productId = step.id ?? (product && product.outcome !== 'rejected' ? product.id : null);
      if (productId === null || product?.outcome === 'rejected') return undefined; // the product's own rejection says why
      return applyComposition(step, productId, context);
    },
    (settled) => progress({ batch: input.batch, settled, of: steps.length }),
    stop,
  );
  const compositions = { written: 0, rejected: 0 };
  for (const settled of outcomes.values()) {
    if (settled.outcome === 'rejected') compositions.rejected += 1;
    else if (settled.outcome !== 'unchanged') compositions.written += 1;
  }
  return {
    batch: input.batch,
    counts: { created: 0, updated: 0, unchanged: 0, rejected: 0 },
    compositions,
    recovered: 0,
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}

/**
 * Applies one staged batch (one level). Each product's outcome is journalled as it settles; a retried attempt
 * skips settled products and writes the rest again, which converges: a create that had gone through answers 409
 * (or codes_not_unique) and is re-read, and a PUT of the same fields is harmless. Once `stop` is aborted (the run
 * is cancelled) no further product is begun: those under way are written and journalled, then its reason is thrown.
 */
export async function applyBatch(
  input: ApplyInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
  stop?: AbortSignal,
  only?: ReadonlySet<string>,
): Promise<BatchResult> {
  const started = Date.now();
  const { entry } = await run.stagedBatch(input.manifest, manifestSchema, input.batch);
  if (entry.kind === 'compositions' && only === undefined)
    return applyCompositionBatch(input, run, api, progress, entry.ref, stop);
  const staged =
    entry.kind === 'compositions' ? [] : await run.staging.readAllNdjson(entry.ref, writeStepSchema);
  const steps = only === undefined ? staged : staged.filter((step) => only.has(step.externalId));

  const journal = run.journal(input.batch);
  const { done, pending } = await journal.resume();
  const rejectedParents = new Map<string, Outcome>();
  if (entry.level !== 'style' || steps.some((step) => step.takes !== undefined)) {
    for (const earlier of await run.outcomes(input.batch))
      if (earlier.outcome === 'rejected') rejectedParents.set(earlier.externalId, earlier);
  }
  const context: StepContext = { api, journal, rejectedParents, pending };
  const todo = steps.filter((step) => !done.has(step.externalId));
  await unarchiveAll(todo, api);
  const outcomes = await journal.settleAll(
    done,
    todo,
    api.lanes(LANES),
    (step) => applyStep(step, context),
    (settled) => progress({ batch: input.batch, settled, of: steps.length }),
    stop,
  );

  const counts = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  let recovered = 0;
  // A release is the first of a product's two writes (a swap): the product is counted at its second.
  const releases = new Set(
    steps.flatMap((step) => (step.action === 'update' && step.release ? [step.externalId] : [])),
  );
  for (const settled of outcomes.values()) {
    if (releases.has(settled.externalId)) continue;
    counts[settled.outcome] += 1;
    if (settled.recovered) recovered += 1;
  }
  return { batch: input.batch, counts, recovered, apiCalls: api.count, durationMs: Date.now() - started };
}

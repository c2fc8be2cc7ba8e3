import {
  isTraceabilityApiError,
  type MaterialHeader,
  type MaterialLine,
  type TraceabilityApiError,
} from '../../connectors/traceability';
import type { ApiCalls, Progress } from '../batch-kit';
import { immutableMismatch, readBack, updateFromCreate } from './converge';
import { toCurrentLine } from './plan';
import type { BatchJournal, StagingRef } from '../../connectors/staging';
import {
  compositionOps,
  currentHeaderSchema,
  type CompositionOp,
  type CurrentHeader,
} from '../../connectors/plm-import';
import {
  compositionStepSchema,
  manifestSchema,
  writeStepSchema,
  type CompositionStep,
  type ApplyInput,
  type BatchResult,
  type CreateWrite,
  type JournalEntry,
  type PlmRun,
  type Outcome,
  type WriteStep,
} from './types';

/** Products written at once within a batch; the client paces and bounds the requests themselves. */
const LANES = 8;

/** API answers after which a create is re-read: the product may exist already (our own lost write, or older). */
const EXISTS_CODES = new Set(['external_id_already_exists', 'codes_not_unique']);

interface StepContext {
  api: ApiCalls;
  journal: BatchJournal<JournalEntry>;
  /** Products rejected in earlier batches: their children are rejected without a call. */
  rejectedParents: ReadonlyMap<string, Outcome>;
  /** Writes an earlier attempt of this batch began and did not settle. */
  pending: ReadonlyMap<string, { write: 'create' | 'update' }>;
}

function outcome(step: WriteStep, kind: Outcome['outcome'], extra: Partial<Outcome> = {}): Outcome {
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

/** Row-level API answers (4xx) become the product's rejection; anything retryable is thrown for a retry. */
function rowLevel(error: unknown): error is TraceabilityApiError {
  return isTraceabilityApiError(error) && !error.retryable;
}

/** A create met an existing product: re-read it and make it match (or reject it when it cannot be that product). */
async function convergeExisting(
  step: CreateWrite,
  error: TraceabilityApiError,
  context: StepContext,
): Promise<Outcome> {
  const found = await readBack(context.api, step);
  if (!found) return rejection(step, error);
  const mismatch = immutableMismatch(step, found);
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
  const { body, changed } = updateFromCreate(step, found.product);
  if (changed.length === 0)
    return outcome(step, own ? 'created' : 'unchanged', { id: found.product.id, recovered });
  try {
    await context.api.one(() => context.api.client.products.update(found.product.id, body));
  } catch (updateError) {
    if (rowLevel(updateError)) return rejection(step, updateError);
    throw updateError;
  }
  return outcome(step, own ? 'created' : 'updated', { id: found.product.id, recovered });
}

async function applyCreate(step: CreateWrite, context: StepContext): Promise<Outcome> {
  let id: string;
  try {
    id = (await context.api.one(() => context.api.client.products.create(step.body))).id;
  } catch (error) {
    if (!rowLevel(error)) throw error;
    if (EXISTS_CODES.has(error.code)) return convergeExisting(step, error, context);
    return rejection(step, error);
  }
  if (step.styleLevelId !== undefined) {
    // The create body cannot carry styleLevelId (spec: settable on update); a failure here is the row's.
    const styleLevelId = step.styleLevelId;
    try {
      await context.api.one(() => context.api.client.products.update(id, { styleLevelId }));
    } catch (error) {
      if (rowLevel(error)) return { ...rejection(step, error), id };
      throw error;
    }
  }
  return outcome(step, 'created', { id });
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
  await context.journal.append({ kind: 'intent', externalId: step.externalId, write: step.action });
  if (step.action === 'create') return applyCreate(step, context);
  if (Object.keys(step.body).length > 0) {
    try {
      await context.api.one(() => context.api.client.products.update(step.id, step.body));
    } catch (error) {
      if (rowLevel(error)) return rejection(step, error);
      throw error;
    }
  }
  return outcome(step, 'updated', { id: step.id, ...(step.unarchive ? { unarchived: true } : {}) });
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

/** The headers a product owns now, with their lines (a retried composition step plans again from these). */
async function readOwned(api: ApiCalls, productId: string): Promise<CurrentHeader[]> {
  const materials = api.client.materials;
  const headers: MaterialHeader[] = [];
  const firstHeaders = await api.one(() =>
    materials.listHeaders({ styleId: productId, isOwner: true, page: 1, limit: 100 }),
  );
  headers.push(...firstHeaders.items);
  await api.remainingPages(
    firstHeaders,
    (page) => materials.listHeaders({ styleId: productId, isOwner: true, page, limit: 100 }),
    (items) => headers.push(...items),
  );
  const owned: CurrentHeader[] = [];
  for (const header of headers) {
    const lines: MaterialLine[] = [];
    const first = await api.one(() =>
      materials.listLines({ materialHeaderId: header.id, page: 1, limit: 100 }),
    );
    lines.push(...first.items);
    await api.remainingPages(
      first,
      (page) => materials.listLines({ materialHeaderId: header.id, page, limit: 100 }),
      (items) => lines.push(...items),
    );
    owned.push(
      currentHeaderSchema.parse({
        id: header.id,
        name: header.name,
        lines: lines.map(toCurrentLine),
      }),
    );
  }
  return owned;
}

async function runOp(api: ApiCalls, styleId: string, op: CompositionOp): Promise<void> {
  const materials = api.client.materials;
  switch (op.op) {
    case 'deleteHeaders':
      await api.one(() => materials.deleteHeaders({ styleId, materialHeaderIds: op.headerIds }));
      return;
    case 'createHeader': {
      const header = await api.one(() =>
        materials.createHeader({ name: op.name, link: { styleId, isMainMaterial: op.isMainMaterial } }),
      );
      for (const line of op.lines)
        await api.one(() =>
          materials.createLine({ styleId, materialHeaderId: header.id, parentId: null, ...line }),
        );
      return;
    }
    case 'deleteLines':
      await api.one(() => materials.deleteLines({ styleId, materialLineIds: op.lineIds }));
      return;
    case 'replaceLine': {
      const { id, ...line } = op.line;
      await api.one(() => materials.replaceLine(id, { styleId, materialHeaderId: op.headerId, ...line }));
      return;
    }
    case 'createLine':
      await api.one(() =>
        materials.createLine({ styleId, materialHeaderId: op.headerId, parentId: null, ...op.line }),
      );
  }
}

function compositionOutcome(
  step: CompositionStep,
  kind: Outcome['outcome'],
  id: string,
  extra: Partial<Outcome> = {},
): Outcome {
  return {
    kind: 'outcome',
    target: 'composition',
    externalId: step.externalId,
    level: step.level,
    outcome: kind,
    id,
    rowNumbers: step.rowNumbers,
    ...extra,
  };
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
  try {
    const ops = began ? compositionOps(step.desired, await readOwned(context.api, productId)) : step.ops;
    for (const op of ops) await runOp(context.api, productId, op);
    return compositionOutcome(
      step,
      ops.length === 0 ? 'unchanged' : step.id === null ? 'created' : 'updated',
      productId,
    );
  } catch (error) {
    if (!rowLevel(error)) throw error;
    return compositionOutcome(step, 'rejected', productId, {
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
    LANES,
    async (step) => {
      const product = products.get(step.externalId);
      const productId = step.id ?? (product && product.outcome !== 'rejected' ? product.id : null);
      if (productId === null || product?.outcome === 'rejected') return undefined; // the product's own rejection says why
      return applyComposition(step, productId, context);
    },
    (settled) => progress({ batch: input.batch, settled, of: steps.length }),
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
 * (or codes_not_unique) and is re-read, and a PUT of the same fields is harmless.
 */
export async function applyBatch(
  input: ApplyInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
): Promise<BatchResult> {
  const started = Date.now();
  const { entry } = await run.stagedBatch(input.manifest, manifestSchema, input.batch);
  if (entry.kind === 'compositions') return applyCompositionBatch(input, run, api, progress, entry.ref);
  const steps = await run.staging.readAllNdjson(entry.ref, writeStepSchema);

  const journal = run.journal(input.batch);
  const { done, pending } = await journal.resume();
  const rejectedParents = new Map<string, Outcome>();
  if (entry.level !== 'style') {
    for (const earlier of await run.outcomes(input.batch))
      if (earlier.outcome === 'rejected') rejectedParents.set(earlier.externalId, earlier);
  }
  const context: StepContext = { api, journal, rejectedParents, pending };
  const todo = steps.filter((step) => !done.has(step.externalId));
  await unarchiveAll(todo, api);
  const outcomes = await journal.settleAll(
    done,
    todo,
    LANES,
    (step) => applyStep(step, context),
    (settled) => progress({ batch: input.batch, settled, of: steps.length }),
  );

  const counts = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  let recovered = 0;
  for (const settled of outcomes.values()) {
    counts[settled.outcome] += 1;
    if (settled.recovered) recovered += 1;
  }
  return { batch: input.batch, counts, recovered, apiCalls: api.count, durationMs: Date.now() - started };
}

/** The connectors' own BOM edit through a product, which repairs a fork it causes from a snapshot at once. */
import { z } from 'zod';
import {
  isTraceabilityApiError,
  refusesRecord,
  type BomHeader,
  type BomLine,
  type BomLineWrite,
  type TraceabilityClient,
} from '../traceability';
import {
  lacksComponent,
  mapForkToSnapshot,
  readHeaders,
  readLines,
  repairLineBody,
  timeMs,
  type ExactRepair,
} from './lines';
import { snapshotForFork, type ForkSnapshotStore } from './fork-snapshots';
import { COPY_SUFFIX } from './source-header';

/** Polling with exponential backoff, for things the API does asynchronously (child links of a new BOM). */
export interface BackoffOptions {
  /** First pause after a miss. Default 200 ms. */
  initialDelayMs?: number;
  /** Growth of the pause per miss. Default 2. */
  factor?: number;
  /** Longest single pause. Default 3 s. */
  maxDelayMs?: number;
  /** Give up after this long. Default 30 s (the spec says links appear "within a few seconds"). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export class WaitTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly attempts: number,
    readonly waitedMs: number,
  ) {
    super(`Gave up waiting for ${what} after ${attempts} checks over ${waitedMs} ms`);
    this.name = 'WaitTimeoutError';
  }
}

export interface Waited<T> {
  value: T;
  attempts: number;
  waitedMs: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls `probe` until it returns a value, pausing 200, 400, 800... ms (capped) between checks. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: BackoffOptions = {},
): Promise<Waited<T>> {
  const { initialDelayMs = 200, factor = 2, maxDelayMs = 3000, timeoutMs = 30_000 } = options;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const started = now();
  let delay = initialDelayMs;
  for (let attempts = 1; ; attempts++) {
    const value = await probe();
    if (value !== undefined) return { value, attempts, waitedMs: now() - started };
    const elapsed = now() - started;
    if (elapsed >= timeoutMs) throw new WaitTimeoutError(what, attempts, elapsed);
    await sleep(Math.min(delay, maxDelayMs, timeoutMs - elapsed));
    delay *= factor;
  }
}

/**
 * The product's link to a header. Child links of a new BOM appear seconds after the create, so this polls with
 * backoff until the link shows (or the timeout passes).
 */
export async function waitForBomLink(
  client: TraceabilityClient,
  productId: string,
  bomHeaderId: string,
  backoff: BackoffOptions = {},
): Promise<BomHeader> {
  const { value } = await waitFor(
    `the link of ${productId} to BOM ${bomHeaderId}`,
    async () =>
      (await client.boms.listHeaders({ styleId: productId, ids: [bomHeaderId], limit: 100 })).items.find(
        (h) => h.id === bomHeaderId,
      ),
    backoff,
  );
  return value;
}

/** The client types the delete answer loosely; a fork through an inherited link names its copy here. */
const deleteAnswerSchema = z.looseObject({ duplicatedHeaders: z.array(z.string()).default([]) });

type LineValues = Omit<BomLineWrite, 'entity' | 'bomHeaderId'>;

/** One BOM edit the connectors make through a product (`entityStyleId`). */
export type SafeBomEdit =
  | { kind: 'replace'; lineId: string; values: LineValues }
  | { kind: 'create'; values: LineValues }
  | { kind: 'delete'; lineIds: string[] };

export interface SafeBomWriteInput {
  /** The product through which the edit is made (platform id or externalId). */
  entityStyleId: string;
  bomHeaderId: string;
  edit: SafeBomEdit;
  /** How long to wait for the product's link to a BOM created moments ago. */
  linkWait?: BackoffOptions;
}

export interface SafeBomWriteResult {
  /** The header the product now owns or inherits: the fork's id when the write forked. */
  bomHeaderId: string;
  forked: boolean;
  /** The written line (replace, create). */
  line: BomLine | null;
  repairs: ExactRepair[];
  /** Fork lines left without a component and why: ones the snapshot could not account for, ones the API refused. */
  problems: string[];
  /** Lines of the product's header still without a component after the repair (none when all went well). */
  linesWithoutComponent: string[];
}

async function write(client: TraceabilityClient, entity: string, headerId: string, edit: SafeBomEdit) {
  const entityRef = { styleId: entity };
  switch (edit.kind) {
    case 'replace': {
      const line = await client.boms.replaceLine(edit.lineId, { ...edit.values, entity: entityRef });
      return { headerId: line.bomHeaderId, line };
    }
    case 'create': {
      const line = await client.boms.createLine({ ...edit.values, entity: entityRef, bomHeaderId: headerId });
      return { headerId: line.bomHeaderId, line };
    }
    case 'delete': {
      const result = deleteAnswerSchema.parse(
        await client.boms.deleteLines({ styleId: entity, bomLineIds: edit.lineIds }),
      );
      return { headerId: result.duplicatedHeaders[0] ?? headerId, line: null };
    }
  }
}

type Written = Awaited<ReturnType<typeof write>>;

/**
 * Whether a line delete whose answer was lost had committed, from a re-read (its retry is answered 404
 * `bom_lines_not_found`, "nothing deleted", once the lines are gone). Through the owner: none of the lines is left
 * on the header. Through an inherited link the delete "yields a copy without the deleted lines" and the product's link
 * to the shared header is gone (spec 02, no re-attach): the copy is the one header the product owns named as the
 * source with ` (Copy)`, holding exactly the snapshot's lines less the deleted ones. Anything else: undefined (the
 * delete stays maybe-committed).
 */
async function deleteLanded(
  client: TraceabilityClient,
  entity: string,
  source: BomHeader,
  lineIds: readonly string[],
  snapshot: readonly BomLine[],
): Promise<Written | undefined> {
  const deleted = new Set(lineIds);
  if (source.link?.isOwner) {
    const left = await readLines(client, source.id);
    return left.some((line) => deleted.has(line.id)) ? undefined : { headerId: source.id, line: null };
  }
  const headers = await readHeaders(client, entity);
  if (headers.some((header) => header.id === source.id)) return undefined;
  const copies = headers.filter(
    (header) => header.link?.isOwner === true && header.name === `${source.name}${COPY_SUFFIX}`,
  );
  const copy = copies[0];
  if (copies.length !== 1 || !copy) return undefined;
  const mapping = mapForkToSnapshot(snapshot, await readLines(client, copy.id), { snapshotLineIds: deleted });
  return mapping.mismatches.length === 0 ? { headerId: copy.id, line: null } : undefined;
}

/**
 * A BOM edit that never leaves copied lines without their component. Through an owner link it is a plain write.
 * Through an inherited link (which forks the BOM) it snapshots the source lines first, writes, and restores each
 * copied line's component and main flag from the snapshot line it was copied from (exact pairing, see
 * `mapForkToSnapshot`) unless a source line changed between the snapshot and the fork (`snapshotForFork`, judged on
 * a read of the source after the write: then nothing is repaired here and `problems` says why), then re-reads the fork to report any line still without a component. The snapshot stays
 * in `snapshots`, marked with the fork, only when the write forked (or may have, its answer lost).
 */
export async function safeBomWrite(
  client: TraceabilityClient,
  input: SafeBomWriteInput,
  /** Where the pre-fork snapshot is kept for later repairs (`bom-repair`), when the write forks. */
  snapshots?: ForkSnapshotStore,
): Promise<SafeBomWriteResult> {
  const link = await waitForBomLink(client, input.entityStyleId, input.bomHeaderId, input.linkWait);
  const entity = link.link?.styleId ?? input.entityStyleId;
  const snapshot = link.link?.isOwner ? [] : await readLines(client, input.bomHeaderId);
  const edit = input.edit;
  const writtenLineIds = edit.kind === 'replace' ? [edit.lineId] : edit.kind === 'delete' ? edit.lineIds : [];
  const kept = !link.link?.isOwner && snapshots ? snapshots : undefined;
  const record = {
    productId: entity,
    sourceHeaderId: input.bomHeaderId,
    takenAt: new Date().toISOString(),
    writtenLineIds,
    lines: snapshot,
  };
  // Kept before the write: if the run dies between the fork and its repair, a later repair still knows each
  // copied line's component at fork time instead of reading a source that may have changed since.
  await kept?.save(record);
  let written: Written;
  try {
    written = await write(client, entity, input.bomHeaderId, edit);
  } catch (error) {
    const landed =
      isTraceabilityApiError(error) && error.maybeCommitted && edit.kind === 'delete'
        ? // A re-read that fails too settles nothing: the write's own error stands.
          await deleteLanded(client, entity, link, edit.lineIds, snapshot).catch(() => undefined)
        : undefined;
    if (!landed) {
      // A refused write made no copy (spec 02): its snapshot records no fork. One that may have landed keeps it.
      if (isTraceabilityApiError(error) && !error.maybeCommitted)
        await kept?.remove(entity, input.bomHeaderId);
      throw error;
    }
    written = landed;
  }
  const forked = written.headerId !== input.bomHeaderId;
  // "PUT /bom-lines/{id} with no change | No copy" (spec 02): no fork, nothing to record. A fork marks its own.
  if (forked) await kept?.save({ ...record, forkHeaderId: written.headerId });
  else await kept?.remove(entity, input.bomHeaderId);
  const result: SafeBomWriteResult = {
    bomHeaderId: written.headerId,
    forked,
    line: written.line,
    repairs: [],
    problems: [],
    linesWithoutComponent: [],
  };
  if (!forked) return result;

  const forkLines = await readLines(client, written.headerId);
  // The fork copied the source as it stood at the write, not as the snapshot saw it: an owner edit in between
  // (retries and 429 waits widen the window) would have the snapshot name a component the copy never had. The
  // source's own times say whether any line changed before the fork; if one did, nothing is repaired from it here.
  const copies = forkLines.filter(lacksComponent);
  const forkMs = Math.min(
    ...forkLines.map((line) => timeMs(line.createdAt)).filter((ms) => !Number.isNaN(ms)),
  );
  const trust =
    copies.length === 0
      ? undefined
      : snapshotForFork(
          { ...record, forkHeaderId: written.headerId },
          {
            id: written.headerId,
            createdAt: Number.isFinite(forkMs) ? new Date(forkMs).toISOString() : null,
          },
          await readLines(client, input.bomHeaderId),
        );
  if (trust && !trust.use) {
    result.problems.push(
      `snapshot of ${input.bomHeaderId} not used: ${trust.reason}; the copies are left without a component for ` +
        'the bom-repair job, which repairs them from the source as it stood at the fork',
    );
    result.linesWithoutComponent = copies.map((line) => line.id);
    return result;
  }
  const mapping = mapForkToSnapshot(snapshot, forkLines, {
    snapshotLineIds: new Set(writtenLineIds),
    forkLineIds: new Set(written.line ? [written.line.id] : []),
  });
  result.problems.push(...mapping.mismatches);
  const byId = new Map(forkLines.map((line) => [line.id, line]));
  for (const repair of mapping.repairs) {
    const line = byId.get(repair.lineId);
    if (!line) continue;
    try {
      await client.boms.replaceLine(line.id, repairLineBody(line, entity, repair.component));
    } catch (error) {
      // The edit landed and forked: a copy the API will not take back (a legacy unit no longer allowed for its
      // component, spec 02) is that line's problem, as in the repair job; the other copies go on.
      if (!refusesRecord(error)) throw error;
      result.problems.push(`${line.id}: ${error.code}: ${error.message}`);
      continue;
    }
    result.repairs.push(repair);
  }
  result.linesWithoutComponent = (await readLines(client, written.headerId))
    .filter(lacksComponent)
    .map((line) => line.id);
  return result;
}

import { z } from 'zod';
import type { BomLine, BomLineWrite, TraceabilityClient } from '../traceability';
import type { ForkSnapshotStore } from './fork-snapshots';
import { lacksComponent } from './line-fields';
import { repairLineBody } from './put-body';
import { readLines, waitForBomLink } from './reads';
import { mapForkToSnapshot, type ExactRepair } from './snapshot-map';
import type { BackoffOptions } from './wait';

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
  /** Fork lines the snapshot could not account for (left without a component) and why. */
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

/**
 * A BOM edit that never leaves copied lines without their component. Through an owner link it is a plain write.
 * Through an inherited link (which forks the BOM) it snapshots the source lines first, writes, and restores each
 * copied line's component and main flag from the snapshot line it was copied from (exact pairing, see
 * `mapForkToSnapshot`), then re-reads the fork to report any line still without a component.
 */
export async function safeBomWrite(
  client: TraceabilityClient,
  input: SafeBomWriteInput,
  /** Where the pre-fork snapshot is kept for later repairs (`bom-repair`), when the write may fork. */
  snapshots?: ForkSnapshotStore,
): Promise<SafeBomWriteResult> {
  const link = await waitForBomLink(client, input.entityStyleId, input.bomHeaderId, input.linkWait);
  const entity = link.link?.styleId ?? input.entityStyleId;
  const snapshot = link.link?.isOwner ? [] : await readLines(client, input.bomHeaderId);
  if (!link.link?.isOwner && snapshots) {
    // Kept before the write: if the run dies between the fork and its repair, a later repair still knows each
    // copied line's component at fork time instead of reading a source that may have changed since.
    await snapshots.save({
      productId: entity,
      sourceHeaderId: input.bomHeaderId,
      takenAt: new Date().toISOString(),
      writtenLineIds:
        input.edit.kind === 'replace'
          ? [input.edit.lineId]
          : input.edit.kind === 'delete'
            ? input.edit.lineIds
            : [],
      lines: snapshot,
    });
  }
  const written = await write(client, entity, input.bomHeaderId, input.edit);
  const forked = written.headerId !== input.bomHeaderId;
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
  const edit = input.edit;
  const mapping = mapForkToSnapshot(snapshot, forkLines, {
    snapshotLineIds: new Set(
      edit.kind === 'replace' ? [edit.lineId] : edit.kind === 'delete' ? edit.lineIds : [],
    ),
    forkLineIds: new Set(written.line ? [written.line.id] : []),
  });
  result.problems.push(...mapping.mismatches);
  const byId = new Map(forkLines.map((line) => [line.id, line]));
  for (const repair of mapping.repairs) {
    const line = byId.get(repair.lineId);
    if (!line) continue;
    await client.boms.replaceLine(line.id, repairLineBody(line, entity, repair.component));
    result.repairs.push(repair);
  }
  result.linesWithoutComponent = (await readLines(client, written.headerId))
    .filter(lacksComponent)
    .map((line) => line.id);
  return result;
}

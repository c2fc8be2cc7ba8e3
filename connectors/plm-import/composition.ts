import { z } from 'zod';
import type { ApiCalls } from '../staging';
import { forEachBounded } from '../staging';
import type { DraftComposition } from './draft';

/** A material line as the API holds it (spec 02), the part the import compares and must send back on a replace. */
export const currentLineSchema = z.object({
  id: z.string(),
  rawMaterialId: z.string(),
  percentage: z.number(),
  parentId: z.string().nullable(),
  weights: z.number().nullable(),
  weightUnit: z.string().nullable(),
  countriesOfOrigin: z.array(z.string()).nullable(),
});
export type CurrentLine = z.infer<typeof currentLineSchema>;

/** A material header the product owns (link `isOwner`), with its lines when they were read. */
export const currentHeaderSchema = z.object({
  id: z.string(),
  name: z.string(),
  lines: z.array(currentLineSchema).nullable(),
});
export type CurrentHeader = z.infer<typeof currentHeaderSchema>;

const rootLineSchema = z.object({ rawMaterialId: z.string(), percentage: z.number() });

/** One write of a composition change, in the order to send them (deletes and decreases before increases). */
export const compositionOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('deleteHeaders'), headerIds: z.array(z.string()).min(1) }),
  z.object({
    op: z.literal('createHeader'),
    name: z.string(),
    isMainMaterial: z.boolean(),
    lines: z.array(rootLineSchema),
  }),
  z.object({ op: z.literal('deleteLines'), headerId: z.string(), lineIds: z.array(z.string()).min(1) }),
  z.object({ op: z.literal('replaceLine'), headerId: z.string(), line: currentLineSchema }),
  z.object({ op: z.literal('createLine'), headerId: z.string(), line: rootLineSchema }),
]);
export type CompositionOp = z.infer<typeof compositionOpSchema>;

const hundredths = (value: number): number => Math.round(value * 100);
const nameKey = (name: string): string => name.trim().toLowerCase();

/**
 * The writes that make a product's owned compositions equal the sheet's: an empty list when nothing changes. A
 * header of the same name is edited in place (only the lines that differ: deleted, replaced with the new
 * percentage, or added), a section the product lacks gets a new header, and owned headers the sheet no longer
 * names are deleted. Sibling percentages may never exceed 100 (spec 02, tree rule 1), so lines go out first,
 * then lowered percentages, then raised ones and new lines.
 */
export function compositionOps(
  desired: readonly DraftComposition[],
  owned: readonly CurrentHeader[],
): CompositionOp[] {
  const ops: CompositionOp[] = [];
  const byName = new Map(owned.map((header) => [nameKey(header.name), header]));
  const wanted = new Set(desired.map((section) => nameKey(section.name)));
  const stale = owned.filter((header) => !wanted.has(nameKey(header.name))).map((header) => header.id);
  if (stale.length > 0) ops.push({ op: 'deleteHeaders', headerIds: stale });
  desired.forEach((section, index) => {
    const header = byName.get(nameKey(section.name));
    const lines = section.lines.map(({ rawMaterialId, percentage }) => ({ rawMaterialId, percentage }));
    if (!header) {
      ops.push({ op: 'createHeader', name: section.name, isMainMaterial: index === 0, lines });
      return;
    }
    const roots = (header.lines ?? []).filter((line) => line.parentId === null);
    const want = new Map(lines.map((line) => [line.rawMaterialId, line]));
    const seen = new Set<string>();
    const remove: string[] = [];
    const lower: CompositionOp[] = [];
    const raise: CompositionOp[] = [];
    for (const line of roots) {
      const target = want.get(line.rawMaterialId);
      if (!target || seen.has(line.rawMaterialId)) {
        remove.push(line.id);
        continue;
      }
      seen.add(line.rawMaterialId);
      if (hundredths(target.percentage) === hundredths(line.percentage)) continue;
      const op: CompositionOp = {
        op: 'replaceLine',
        headerId: header.id,
        line: { ...line, percentage: target.percentage },
      };
      (target.percentage < line.percentage ? lower : raise).push(op);
    }
    if (remove.length > 0) ops.push({ op: 'deleteLines', headerId: header.id, lineIds: remove });
    ops.push(...lower, ...raise);
    for (const line of lines)
      if (!seen.has(line.rawMaterialId)) ops.push({ op: 'createLine', headerId: header.id, line });
  });
  return ops;
}

export function toCurrentLine(line: {
  id: string;
  rawMaterialId: string;
  percentage: number;
  parentId: string | null;
  weights?: number | null;
  weightUnit?: string | null;
  countriesOfOrigin?: string[] | null;
}): CurrentLine {
  return currentLineSchema.parse({
    id: line.id,
    rawMaterialId: line.rawMaterialId,
    percentage: line.percentage,
    parentId: line.parentId,
    weights: line.weights ?? null,
    weightUnit: line.weightUnit ?? null,
    countriesOfOrigin: line.countriesOfOrigin ?? null,
  });
}

/** Lines of these headers: one list per header, or every line of the account when that takes fewer pages. */
export async function readLines(
  api: ApiCalls,
  headerIds: readonly string[],
): Promise<Map<string, CurrentLine[]>> {
  const byHeader = new Map<string, CurrentLine[]>(headerIds.map((id) => [id, []]));
  const add = (items: ReadonlyArray<Parameters<typeof toCurrentLine>[0] & { materialHeaderId: string }>) => {
    for (const item of items) byHeader.get(item.materialHeaderId)?.push(toCurrentLine(item));
  };
  if (headerIds.length === 0) return byHeader;
  if (headerIds.length >= 4) {
    const first = await api.one(() => api.client.materials.listLines({ page: 1, limit: 100 }));
    add(first.items);
    if (first.pagination.totalPages <= headerIds.length) {
      await api.remainingPages(first, (page) => api.client.materials.listLines({ page, limit: 100 }), add);
      return byHeader;
    }
    for (const id of headerIds) byHeader.set(id, []);
  }
  await forEachBounded(headerIds, api.lanes(8), async (headerId) => {
    const lines = await api.all((page, limit) =>
      api.client.materials.listLines({ materialHeaderId: headerId, page, limit }),
    );
    byHeader.set(headerId, lines.map(toCurrentLine));
  });
  return byHeader;
}

/** The headers a product owns now, with their lines (a retried composition step plans again from these). */
export async function readOwned(api: ApiCalls, productId: string): Promise<CurrentHeader[]> {
  const materials = api.client.materials;
  const headers = await api.all((page, limit) =>
    materials.listHeaders({ styleId: productId, isOwner: true, page, limit }),
  );
  const owned: CurrentHeader[] = [];
  for (const header of headers) {
    const lines = await api.all((page, limit) =>
      materials.listLines({ materialHeaderId: header.id, page, limit }),
    );
    owned.push({ id: header.id, name: header.name, lines: lines.map(toCurrentLine) });
  }
  return owned;
}

export async function runOp(api: ApiCalls, styleId: string, op: CompositionOp): Promise<void> {
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

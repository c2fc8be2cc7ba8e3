import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { ApiCalls } from '../staging';
import { forEachBounded } from '../staging';
import { quoteInput } from '../input-limits';
import { readList, type BulkDeleteAnswer } from '../traceability';
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
type RootLine = z.infer<typeof rootLineSchema>;

/**
 * A composition the product inherits (spec 02: GET /material-headers lists those "owned and inherited"), with the root
 * lines it will hold once this run's writes on the product's ancestors land. `id` is null for one an ancestor's step
 * creates in this run: its link to the product appears later, found then by its `owner` (the ancestor) and name.
 */
export const inheritedHeaderSchema = z.object({
  id: z.string().nullable(),
  owner: z.string().nullable(),
  name: z.string(),
  lines: z.array(rootLineSchema),
});
export type InheritedHeader = z.infer<typeof inheritedHeaderSchema>;

/** An inherited composition to detach: by id, or (created in this run) by the ancestor that owns it and its name. */
const detachTargetSchema = z.union([
  z.strictObject({ id: z.string(), name: z.string() }),
  z.strictObject({ owner: z.string(), name: z.string() }),
]);
export type DetachTarget = z.infer<typeof detachTargetSchema>;

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
  z.object({ op: z.literal('detachInherited'), headers: z.array(detachTargetSchema).min(1) }),
]);
export type CompositionOp = z.infer<typeof compositionOpSchema>;

const nameKey = (name: string): string => name.trim().toLowerCase();
const linesKey = (lines: readonly RootLine[]): string =>
  lines
    .map((line) => `${line.rawMaterialId}\u0000${line.percentage}`)
    .sort()
    .join('\n');

/**
 * The writes that make the compositions linked to a product equal the sheet's: an empty list when nothing changes. A
 * header of the same name the product owns is edited in place (only the lines that differ: deleted, replaced with
 * the new percentage, or added); else an inherited one of the same name and lines is kept (the product goes on
 * inheriting it); else the section gets a new header. Owned headers the sheet no longer names are deleted, and
 * inherited ones not kept are detached, last, once the product holds its own (spec 02, POST /material-headers/delete
 * through an inherited link: "Link removed (detach)", "Shared header untouched"). Sibling percentages may never
 * exceed 100 (spec 02, tree rule 1), so lines go out first, then lowered percentages, then raised ones and new lines.
 * `scope` (a blank cell taking its parent row's composition): only headers of these names are deleted or detached;
 * others (set on the platform, not by the sheet) are left as they are.
 */
export function compositionOps(
  desired: readonly DraftComposition[],
  owned: readonly CurrentHeader[],
  inherited: readonly InheritedHeader[] = [],
  scope: readonly string[] | null = null,
): CompositionOp[] {
  const ops: CompositionOp[] = [];
  const byName = new Map(owned.map((header) => [nameKey(header.name), header]));
  const wanted = new Set(desired.map((section) => nameKey(section.name)));
  const inScope = (name: string): boolean =>
    scope === null || scope.some((item) => nameKey(item) === nameKey(name));
  const stale = owned
    .filter((header) => !wanted.has(nameKey(header.name)) && inScope(header.name))
    .map((header) => header.id);
  if (stale.length > 0) ops.push({ op: 'deleteHeaders', headerIds: stale });
  const kept = new Set<InheritedHeader>();
  desired.forEach((section, index) => {
    const header = byName.get(nameKey(section.name));
    const lines = section.lines.map(({ rawMaterialId, percentage }) => ({ rawMaterialId, percentage }));
    if (!header) {
      const same = inherited.find(
        (link) =>
          !kept.has(link) &&
          nameKey(link.name) === nameKey(section.name) &&
          linesKey(link.lines) === linesKey(lines),
      );
      if (same) kept.add(same);
      else ops.push({ op: 'createHeader', name: section.name, isMainMaterial: index === 0, lines });
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
      // Exact: the API stores the number sent (spec 02 "percentage | number"), so it reads back equal.
      if (target.percentage === line.percentage) continue;
      const op: CompositionOp = {
        op: 'replaceLine',
        headerId: header.id,
        line: { ...line, percentage: target.percentage },
      };
      (target.percentage < line.percentage ? lower : raise).push(op);
    }
    ops.push(...deleteBottomUp(header.id, header.lines ?? [], remove));
    ops.push(...lower, ...raise);
    for (const line of lines)
      if (!seen.has(line.rawMaterialId)) ops.push({ op: 'createLine', headerId: header.id, line });
  });
  const detach = inherited
    .filter((link) => !kept.has(link) && inScope(link.name))
    .flatMap(({ id, owner, name }): DetachTarget[] =>
      id !== null ? [{ id, name }] : owner !== null ? [{ owner, name }] : [],
    );
  if (detach.length > 0) ops.push({ op: 'detachInherited', headers: detach });
  return ops;
}

/**
 * Deletes of these lines and every line below them, deepest level first, up to 100 ids a call. Spec 02, POST
 * /material-lines/delete: "Deleting a line cascades one level only, so deep trees must be deleted bottom-up or
 * grandchildren keep dangling `parentId` values."
 */
function deleteBottomUp(
  headerId: string,
  lines: readonly CurrentLine[],
  roots: readonly string[],
): CompositionOp[] {
  const children = new Map<string, string[]>();
  for (const line of lines)
    if (line.parentId !== null)
      children.set(line.parentId, [...(children.get(line.parentId) ?? []), line.id]);
  const levels: string[][] = [];
  const seen = new Set<string>();
  for (let level = [...roots]; level.length > 0;) {
    for (const id of level) seen.add(id);
    levels.push(level);
    level = level.flatMap((id) => children.get(id) ?? []).filter((id) => !seen.has(id));
  }
  const ops: CompositionOp[] = [];
  for (const level of levels.reverse())
    for (let start = 0; start < level.length; start += 100)
      ops.push({ op: 'deleteLines', headerId, lineIds: level.slice(start, start + 100) });
  return ops;
}

/** A product whose composition the sheet gives, as `planCompositions` takes it. */
export interface CompositionInput {
  externalId: string;
  /** The product's ancestors, nearest first (externalIds). */
  ancestors: readonly string[];
  desired: readonly DraftComposition[];
  /** See compositionOps: null when the product's own cell gives its composition. */
  scope?: readonly string[] | null;
  /** Headers it owns, with their lines; empty for a product this run creates. */
  owned: readonly CurrentHeader[];
  /**
   * Headers it inherits, with their lines; for a product this run creates, those its parent is linked to, which a new
   * child inherits when it is created.
   */
  inherited: ReadonlyArray<{ id: string; name: string; lines: readonly CurrentLine[] | null }>;
}

/**
 * Each product's composition writes, parents before children: a child compares the sheet with what it will inherit
 * once its ancestors' writes land. Spec 02: through the owner a write changes "the shared record at once for all
 * inheriting children", and a header created on a product "is linked to every variant and SKU below it" (those links
 * appear asynchronously). `inputs` must list parents before their children.
 */
export function planCompositions(
  inputs: readonly CompositionInput[],
): Array<{ ops: CompositionOp[]; inherited: InheritedHeader[] }> {
  const effects = new Map<
    string,
    {
      edited: Map<string, RootLine[]>;
      deleted: Set<string>;
      created: Array<{ name: string; lines: RootLine[] }>;
    }
  >();
  return inputs.map((input) => {
    let inherited: InheritedHeader[] = input.inherited.map((header) => ({
      id: header.id,
      owner: null,
      name: header.name,
      lines: (header.lines ?? [])
        .filter((line) => line.parentId === null)
        .map(({ rawMaterialId, percentage }) => ({ rawMaterialId, percentage })),
    }));
    for (const ancestor of input.ancestors) {
      const effect = effects.get(ancestor);
      if (!effect) continue;
      inherited = inherited
        .filter((header) => header.id === null || !effect.deleted.has(header.id))
        .map((header) => {
          const lines = header.id === null ? undefined : effect.edited.get(header.id);
          return lines ? { ...header, lines } : header;
        });
      for (const created of effect.created) inherited.push({ id: null, owner: ancestor, ...created });
    }
    const ops = compositionOps(input.desired, input.owned, inherited, input.scope ?? null);
    const sections = new Map(
      input.desired.map((section) => [
        nameKey(section.name),
        section.lines.map(({ rawMaterialId, percentage }) => ({ rawMaterialId, percentage })),
      ]),
    );
    const edited = new Map<string, RootLine[]>();
    for (const header of input.owned) {
      const lines = sections.get(nameKey(header.name));
      if (lines) edited.set(header.id, lines);
    }
    effects.set(input.externalId, {
      edited,
      deleted: new Set(ops.flatMap((op) => (op.op === 'deleteHeaders' ? op.headerIds : []))),
      created: ops.flatMap((op) => (op.op === 'createHeader' ? [{ name: op.name, lines: op.lines }] : [])),
    });
    return { ops, inherited };
  });
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
  if (headerIds.length === 0) return byHeader;
  if (headerIds.length >= 4) {
    // Oldest first (the default is createdAt, newest first: spec 01, "default `desc`"): a line created meanwhile lands
    // on a later page instead of pushing one already read onto the next; a line met twice all the same counts once.
    const oldestFirst = (page: number, limit: number) =>
      api.one(() => api.client.materials.listLines({ page, limit, sort: 'createdAt', order: 'asc' }));
    const first = await oldestFirst(1, 100);
    if (first.pagination.totalPages <= headerIds.length) {
      const read = await readList(oldestFirst, {
        first,
        moved: 'shrink',
        schedule: (pages, readPage) => forEachBounded(pages, api.lanes(4), readPage),
      });
      // A line deleted meanwhile pulls a later one onto a page already read: that line would be missed.
      if (read.moved === undefined) {
        for (const item of read.items) byHeader.get(item.materialHeaderId)?.push(toCurrentLine(item));
        return byHeader;
      }
    }
  }
  await forEachBounded(headerIds, api.lanes(8), async (headerId) => {
    const lines = await api.all(`GET /material-lines?materialHeaderId=${headerId}`, (page, limit) =>
      api.client.materials.listLines({ materialHeaderId: headerId, page, limit }),
    );
    byHeader.set(headerId, lines.map(toCurrentLine));
  });
  return byHeader;
}

/** The headers a product owns now, with their lines (a retried composition step plans again from these). */
export async function readOwned(api: ApiCalls, productId: string): Promise<CurrentHeader[]> {
  const materials = api.client.materials;
  const headers = await api.all(`GET /material-headers?styleId=${productId}&isOwner=true`, (page, limit) =>
    materials.listHeaders({ styleId: productId, isOwner: true, page, limit }),
  );
  const owned: CurrentHeader[] = [];
  for (const header of headers) {
    const lines = await api.all(`GET /material-lines?materialHeaderId=${header.id}`, (page, limit) =>
      materials.listLines({ materialHeaderId: header.id, page, limit }),
    );
    owned.push({ id: header.id, name: header.name, lines: lines.map(toCurrentLine) });
  }
  return owned;
}

const deleteErrorsSchema = z.looseObject({
  errors: z
    .array(
      z.looseObject({ id: z.string().nullish(), code: z.string().nullish(), message: z.string().nullish() }),
    )
    .nullish(),
});

/** A bulk delete that answered 200 with per-id failures: the composition was not written as planned. */
export class CompositionDeleteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CompositionDeleteError';
  }
}

/**
 * Spec 02: "per-id failures go into `errors` without failing the request". Throws, naming up to three ids with the
 * API's code and message, when the answer holds any. An answer given on a retry after an earlier attempt may have
 * committed (`earlierAttemptMayHaveCommitted`) reports the ids that attempt deleted as not found: for a delete, that
 * is the outcome asked for, so a `*_not_found` for them counts as deleted.
 */
function checkDeleted(what: string, answer: BulkDeleteAnswer): void {
  const parsed = deleteErrorsSchema.safeParse(answer);
  const reported = parsed.success ? (parsed.data.errors ?? []) : [];
  const errors = answer.earlierAttemptMayHaveCommitted
    ? reported.filter((error) => !(error.code ?? '').endsWith('_not_found'))
    : reported;
  if (errors.length === 0) return;
  const shown = errors
    .slice(0, 3)
    .map(
      (error) =>
        `${error.id ?? '(no id)'} (${error.code ?? 'error'}: ${quoteInput(error.message ?? 'no message', 120)})`,
    );
  const more = errors.length > 3 ? ` and ${errors.length - 3} more` : '';
  throw new CompositionDeleteError(
    errors[0]?.code ?? 'delete_failed',
    `the API did not ${what} ${shown.join(', ')}${more}`,
  );
}

/** How long to wait for a child link to appear: the spec says "within a few seconds". */
const LINK_WAIT_MS = 30_000;
/** The longest gap between the two triggers of one child link worth waiting out (see inheritedLinksOf). */
const SECOND_TRIGGER_MAX_MS = 5_000;

const timeOf = (iso: string | null | undefined): number | null => {
  const time = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(time) ? null : time;
};

/**
 * The ids of the product's inherited links to `targets`, once they all show (child links appear asynchronously,
 * spec 02), or those that showed when the wait ran out (a link that never came needs no detaching). A target given
 * by owner and name is the header of that name the owner (an ancestor) holds now.
 *
 * A product and a header both created in this run can get the same link twice over: from the header ("linked to
 * every variant and SKU below it") and from the new child inheriting its parent's links; a detach between the two
 * would be undone by the second. Both come the same delay after their cause, so the wait goes on for the gap between
 * the product's and the header's createdAt (a few seconds at most) before the link is taken away.
 */
async function inheritedLinksOf(
  api: ApiCalls,
  styleId: string,
  targets: readonly DetachTarget[],
  options: { waitMs: number; productIsNew: boolean },
): Promise<string[]> {
  const materials = api.client.materials;
  const wanted = new Set<string>();
  let newestCreated: number | null = null;
  const byOwner = new Map<string, Set<string>>();
  for (const target of targets) {
    if ('id' in target) wanted.add(target.id);
    else byOwner.set(target.owner, (byOwner.get(target.owner) ?? new Set()).add(nameKey(target.name)));
  }
  for (const [owner, names] of byOwner) {
    const headers = await api.all(`GET /material-headers?styleId=${owner}&isOwner=true`, (page, limit) =>
      materials.listHeaders({ styleId: owner, isOwner: true, page, limit }),
    );
    for (const header of headers.filter((item) => names.has(nameKey(item.name)))) {
      wanted.add(header.id);
      newestCreated = Math.max(newestCreated ?? 0, timeOf(header.createdAt) ?? 0);
    }
  }
  if (wanted.size === 0) return [];
  const deadline = Date.now() + options.waitMs;
  let present: string[] = [];
  for (let pause = 100; ; pause = Math.min(pause * 2, 2000)) {
    const linked = await api.all(`GET /material-headers?styleId=${styleId}&isOwner=false`, (page, limit) =>
      materials.listHeaders({ styleId, isOwner: false, page, limit }),
    );
    present = linked.filter((header) => wanted.has(header.id)).map((header) => header.id);
    if (present.length === wanted.size || Date.now() >= deadline) break;
    await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
  }
  if (options.productIsNew && newestCreated !== null && present.length > 0) {
    const product = await api.one(() => api.client.products.get(styleId));
    const created = timeOf(product.createdAt);
    const gap = created === null ? SECOND_TRIGGER_MAX_MS : newestCreated - created;
    if (gap > 0) await sleep(Math.min(gap, SECOND_TRIGGER_MAX_MS) + 500);
  }
  return present;
}

export async function runOp(
  api: ApiCalls,
  styleId: string,
  op: CompositionOp,
  options: { productIsNew?: boolean; linkWaitMs?: number } = {},
): Promise<void> {
  const materials = api.client.materials;
  switch (op.op) {
    case 'detachInherited': {
      const ids = await inheritedLinksOf(api, styleId, op.headers, {
        waitMs: options.linkWaitMs ?? LINK_WAIT_MS,
        productIsNew: options.productIsNew ?? false,
      });
      if (ids.length > 0)
        checkDeleted(
          'detach the inherited composition(s)',
          await api.one(() => materials.deleteHeaders({ styleId, materialHeaderIds: ids })),
        );
      return;
    }
    case 'deleteHeaders':
      checkDeleted(
        'delete the composition(s)',
        await api.one(() => materials.deleteHeaders({ styleId, materialHeaderIds: op.headerIds })),
      );
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
      checkDeleted(
        'delete the material line(s)',
        await api.one(() => materials.deleteLines({ styleId, materialLineIds: op.lineIds })),
      );
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

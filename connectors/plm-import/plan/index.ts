import type { DraftFields, ProductLevel } from '../draft';
import { rowIssue, type RowIssue } from '../issues';
import type { DraftComposition } from '../draft';
import type { CurrentHeader } from './composition';
import type { InvalidDraft, ValidatedSheet, ValidDraft } from '../validate';
import {
  comparedFields,
  desiredCodes,
  desiredCustomProperties,
  sameCodes,
  sameValue,
  type ProductCode,
} from './compare';
import { CatalogueIndex, codeKey, type ExistingProduct } from './existing';

export {
  compositionOps,
  compositionOpSchema,
  currentHeaderSchema,
  currentLineSchema,
  type CompositionOp,
  type CurrentHeader,
  type CurrentLine,
} from './composition';
export {
  existingProductSchema,
  parseExistingProducts,
  CatalogueIndex,
  type ExistingProduct,
  type ExistingProductInput,
} from './existing';

/** Body for POST /styles; `parentId` is the parent's externalId, which the API accepts in place of its id. */
export type ProductCreateBody = Omit<DraftFields, 'name' | 'codes' | 'composition'> & {
  externalId: string;
  parentId?: string;
  name: string;
  codes: ProductCode[];
};
/** Body for PUT /styles/{id}: only the fields that change (codes, when sent, are the complete set). */
export type ProductUpdateBody = Partial<Omit<ProductCreateBody, 'externalId' | 'parentId' | 'isComponent'>>;

interface StepBase {
  externalId: string;
  level: ProductLevel;
  rowNumbers: number[];
}
export interface CreateStep extends StepBase {
  action: 'create';
  parentExternalId: string | null;
  body: ProductCreateBody;
}
export interface UpdateStep extends StepBase {
  action: 'update';
  id: string;
  changedFields: string[];
  body: ProductUpdateBody;
  /** The product is archived and the run unarchives it before the update (option `unarchive`). */
  unarchive?: boolean;
}
export interface UnchangedStep extends StepBase {
  action: 'unchanged';
  id: string;
}
/** An archived product the sheet names: rejected unless the run unarchives (spec 01: lists hide archived products). */
export interface ArchivedStep extends StepBase {
  action: 'archived';
  id: string;
  issue: RowIssue;
}
/** A product whose composition the sheet gives: compared with what it owns once its lines are read. */
export interface CompositionCheck extends StepBase {
  /** Platform id; null for a product this run creates. */
  id: string | null;
  column: string | null;
  desired: DraftComposition[];
  /** Headers the product owns (null when it is created by this run, so owns none). */
  owned: CurrentHeader[] | null;
}
export interface InvalidStep {
  action: 'invalid';
  externalId: string;
  rowNumbers: number[];
  issues: RowIssue[];
}

export interface ImportPlan {
  /** Creates and updates in the order to apply them: styles, then variants, then SKUs. */
  writes: Array<CreateStep | UpdateStep>;
  unchanged: UnchangedStep[];
  invalid: InvalidStep[];
  archived: ArchivedStep[];
  compositions: CompositionCheck[];
  counts: { create: number; update: number; unchanged: number; invalid: number; archived: number };
  /** Validation and planning issues by row: the rejects file's content. */
  issues: RowIssue[];
}

const LEVEL_ORDER: Record<ProductLevel, number> = { style: 0, variant: 1, sku: 2 };

function apiCodes(fields: DraftFields): ProductCode[] {
  return (fields.codes ?? []).map(({ codeId, codeValue }) => ({ codeId, codeValue }));
}

function createBody(draft: ValidDraft): ProductCreateBody {
  const { codes: _codes, composition: _composition, ...rest } = draft.fields;
  const body: ProductCreateBody = {
    externalId: draft.externalId,
    name: draft.fields.name ?? '',
    ...rest,
    codes: apiCodes(draft.fields),
  };
  if (draft.parentExternalId !== null) body.parentId = draft.parentExternalId;
  return body;
}

/** Checks that only a create could fix (level, parent, isComponent are fixed once created). */
function immutableProblem(
  draft: ValidDraft,
  current: ExistingProduct,
  catalogue: CatalogueIndex,
): string | null {
  if (current.level !== draft.level)
    return `'${draft.externalId}' exists as a ${current.level}; the sheet makes it a ${draft.level}, and the level cannot change`;
  const currentParent = catalogue.parentExternalIdOf(current);
  if (currentParent !== undefined && currentParent !== draft.parentExternalId) {
    return `'${draft.externalId}' sits under '${currentParent ?? '(none)'}' in the catalogue, not '${draft.parentExternalId ?? '(none)'}'; a product cannot move to another parent`;
  }
  if (
    draft.fields.isComponent !== undefined &&
    current.isComponent !== null &&
    current.isComponent !== draft.fields.isComponent
  ) {
    return `'${draft.externalId}' has isComponent ${String(current.isComponent)} in the catalogue; it is fixed once created`;
  }
  return null;
}

/** Codes of this draft that another catalogue product already holds (the API would answer codes_not_unique). */
function codeClashes(draft: ValidDraft, catalogue: CatalogueIndex): RowIssue[] {
  const issues: RowIssue[] = [];
  for (const code of draft.fields.codes ?? []) {
    const holder = catalogue.byCode.get(codeKey(code.codeId, code.codeValue));
    if (holder && holder.externalId !== draft.externalId) {
      issues.push(
        rowIssue(
          code.rowNumber,
          code.column,
          'duplicate_code_value',
          `${code.codeId} '${code.codeValue}' already belongs to catalogue product '${holder.externalId ?? holder.id}'`,
          draft.externalId,
        ),
      );
    }
  }
  return issues;
}

function updateBody(
  draft: ValidDraft,
  current: ExistingProduct,
): { body: ProductUpdateBody; changed: string[] } {
  const body: Record<string, unknown> = {};
  for (const field of comparedFields) {
    const wanted = draft.fields[field];
    if (wanted === undefined) continue; // blank on the sheet: left as it is (on a child, it keeps inheriting)
    if (!sameValue(field, wanted, current)) body[field] = wanted;
  }
  const sheetCodes = apiCodes(draft.fields);
  if (sheetCodes.length > 0) {
    const codes = desiredCodes(sheetCodes, current.codes);
    if (!sameCodes(codes, current.codes)) body.codes = codes;
  }
  if (draft.fields.customProperties !== undefined) {
    const properties = desiredCustomProperties(draft.fields.customProperties, current.customProperties);
    if (properties !== null) body.customProperties = properties;
  }
  return { body: body as ProductUpdateBody, changed: Object.keys(body) };
}

/**
 * Classifies every product of a validated sheet against the catalogue read from the API: create,
 * update (with the changed fields and the minimal PUT body), unchanged, or invalid. A product that
 * turns out invalid here (a level or parent it cannot change to, a code another product holds) takes
 * its children down with it, as in validation.
 */
export interface PlanOptions {
  /** Unarchive archived products the sheet names, then update them (default: reject their rows). */
  unarchive?: boolean;
}

export function planImport(
  validated: ValidatedSheet,
  existing: readonly ExistingProduct[],
  options: PlanOptions = {},
): ImportPlan {
  const catalogue = new CatalogueIndex(existing);
  const issues: RowIssue[] = [...validated.issues];
  const invalid: InvalidStep[] = validated.invalid.map((item: InvalidDraft) => ({
    action: 'invalid',
    externalId: item.draft.externalId,
    rowNumbers: item.draft.rowNumbers,
    issues: item.issues,
  }));
  const failed = new Map<string, RowIssue>();
  const writes: Array<CreateStep | UpdateStep> = [];
  const unchanged: UnchangedStep[] = [];
  const archived: ArchivedStep[] = [];
  const compositions: CompositionCheck[] = [];

  const ordered = [...validated.valid].sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
  for (const draft of ordered) {
    const current = catalogue.byExternalId.get(draft.externalId);
    const base = { externalId: draft.externalId, level: draft.level, rowNumbers: draft.rowNumbers };
    const parentFailure = draft.parentExternalId === null ? undefined : failed.get(draft.parentExternalId);
    const own: RowIssue[] = [];
    if (current?.isArchived && !options.unarchive) {
      // Spec 01: "Archived products are excluded from default lists" and externalId stays unique across levels,
      // archived ones included: a create would meet 409. The row is refused unless the run unarchives.
      const issue = rowIssue(
        draft.rowNumbers[0] ?? 0,
        draft.externalIdColumn,
        'archived_product',
        `'${draft.externalId}' is archived in the catalogue; unarchive it there or re-run with --unarchive (workflow input "unarchive": true) to unarchive and update it`,
        draft.externalId,
      );
      failed.set(draft.externalId, issue);
      issues.push(
        ...draft.rowNumbers.map((rowNumber) => ({
          ...issue,
          rowNumber,
          message: issue.message.replace(/^row \d+/, `row ${rowNumber}`),
        })),
      );
      archived.push({ action: 'archived', ...base, id: current.id, issue });
      continue;
    }
    if (parentFailure) {
      own.push(
        rowIssue(
          draft.rowNumbers[0] ?? 0,
          draft.parentColumn,
          'invalid_parent',
          `parent '${draft.parentExternalId}' is rejected (row ${parentFailure.rowNumber}: ${parentFailure.code}), so '${draft.externalId}' is not imported either`,
          draft.externalId,
        ),
      );
    } else if (current && !draft.referenceOnly) {
      const problem = immutableProblem(draft, current, catalogue);
      if (problem)
        own.push(
          rowIssue(
            draft.rowNumbers[0] ?? 0,
            draft.externalIdColumn,
            'immutable_field_changed',
            problem,
            draft.externalId,
          ),
        );
    }
    if (own.length === 0 && !draft.referenceOnly) own.push(...codeClashes(draft, catalogue));
    if (own.length > 0) {
      failed.set(draft.externalId, own[0] as RowIssue);
      issues.push(...own);
      invalid.push({
        action: 'invalid',
        externalId: draft.externalId,
        rowNumbers: draft.rowNumbers,
        issues: own,
      });
      continue;
    }
    if (draft.fields.composition && !draft.referenceOnly) {
      compositions.push({
        ...base,
        id: current?.id ?? null,
        column: draft.origins.composition?.column ?? null,
        desired: draft.fields.composition,
        owned: current ? (current.ownedCompositions ?? []) : null,
      });
    }
    if (!current) {
      writes.push({
        action: 'create',
        ...base,
        parentExternalId: draft.parentExternalId,
        body: createBody(draft),
      });
      continue;
    }
    const { body, changed } = draft.referenceOnly ? { body: {}, changed: [] } : updateBody(draft, current);
    const unarchive = current.isArchived ? { unarchive: true } : {};
    if (changed.length === 0 && !current.isArchived)
      unchanged.push({ action: 'unchanged', ...base, id: current.id });
    else
      writes.push({
        action: 'update',
        ...base,
        id: current.id,
        changedFields: current.isArchived ? ['isArchived', ...changed] : changed,
        body,
        ...unarchive,
      });
  }
  issues.sort((a, b) => a.rowNumber - b.rowNumber);
  const creates = writes.filter((step) => step.action === 'create').length;
  return {
    writes,
    unchanged,
    invalid,
    archived,
    compositions,
    counts: {
      create: creates,
      update: writes.length - creates,
      unchanged: unchanged.length,
      invalid: invalid.length,
      archived: archived.length,
    },
    issues,
  };
}

import { z } from 'zod';
import { existingProductSchema, type DraftFields, type ExistingProduct } from '../../connectors/plm-import';
import {
  comparedFields,
  desiredCodes,
  desiredCustomProperties,
  sameCodes,
  sameValue,
  type ComparedField,
} from '../../connectors/plm-import/plan/compare';
import type { ProductUpdate } from '../../connectors/traceability';
import type { ApiCalls } from '../batch-kit';
import type { CreateWrite } from './types';

const parentRefSchema = z.looseObject({ externalId: z.string().nullish() }).nullish();

export interface ReadBack {
  product: ExistingProduct;
  /** The parent's externalId as the API shows it; undefined when the answer did not say. */
  parentExternalId: string | null | undefined;
}

/**
 * GET by externalId, with the parent included so a product found under another parent is recognised. 404 is
 * "not there". Used when a create meets a product that already exists (409, or a code already taken).
 */
export async function readBack(api: ApiCalls, step: CreateWrite): Promise<ReadBack | undefined> {
  const include =
    step.level === 'variant'
      ? (['style'] as const)
      : step.level === 'sku'
        ? (['variant'] as const)
        : undefined;
  const raw = await api.found(() =>
    api.client.products.get(step.externalId, include ? { include: [...include] } : {}),
  );
  if (raw === undefined || raw.externalId !== step.externalId) return undefined;
  const product = existingProductSchema.parse(raw);
  if (step.level === 'style') return { product, parentExternalId: null };
  const parent = parentRefSchema.safeParse(step.level === 'variant' ? raw['style'] : raw['variant']);
  return {
    product,
    parentExternalId: parent.success && parent.data ? (parent.data.externalId ?? null) : undefined,
  };
}

/** Why the found product cannot be the one the sheet describes (level, parent and isComponent are fixed), or null. */
export function immutableMismatch(step: CreateWrite, found: ReadBack): string | null {
  const { product } = found;
  if (product.level !== step.level) {
    return `'${step.externalId}' already exists as a ${product.level}; the sheet makes it a ${step.level}, and the level cannot change`;
  }
  if (found.parentExternalId !== undefined && found.parentExternalId !== step.parentExternalId) {
    return `'${step.externalId}' already exists under '${found.parentExternalId ?? '(none)'}', not '${step.parentExternalId ?? '(none)'}'; a product cannot move to another parent`;
  }
  if (
    step.body.isComponent !== undefined &&
    product.isComponent !== null &&
    product.isComponent !== step.body.isComponent
  ) {
    return `'${step.externalId}' already exists with isComponent ${String(product.isComponent)}; it is fixed once created`;
  }
  return null;
}

/**
 * The PUT that makes an existing product match a create body: only the fields that differ (codes as the full set,
 * keeping code types the sheet does not give; customProperties merged by key), as the planner does.
 */
export function updateFromCreate(
  step: CreateWrite,
  current: ExistingProduct,
): { body: ProductUpdate; changed: string[] } {
  const wanted: Partial<Record<ComparedField, unknown>> = { ...step.body, styleLevelId: step.styleLevelId };
  const body: Record<string, unknown> = {};
  for (const field of comparedFields) {
    const value = wanted[field];
    if (value === undefined || value === null) continue;
    if (!sameValue(field, value as NonNullable<DraftFields[ComparedField]>, current)) body[field] = value;
  }
  const codes = desiredCodes(step.body.codes, current.codes);
  if (!sameCodes(codes, current.codes)) body['codes'] = codes;
  if (typeof step.body.customProperties === 'string') {
    const merged = desiredCustomProperties(step.body.customProperties, current.customProperties);
    if (merged !== null) body['customProperties'] = merged;
  }
  return { body: body as ProductUpdate, changed: Object.keys(body) };
}

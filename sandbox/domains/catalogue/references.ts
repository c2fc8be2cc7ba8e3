import { badRequest } from '../../core/errors';
import type { CatalogueDeps } from './store';
import type { EcoFootPrintInput } from './schemas';
import { isUnit } from './units';
import type { EcoFootPrint, ProductWeight, PropertyCategory, StyleTypeRecord } from './types';

/** Reference checks of product bodies: every unrecognised id is a 400 naming the field (document 1, convention 8). */

export function checkStyleType(deps: CatalogueDeps, ownerId: string, styleTypeId: string): StyleTypeRecord {
  const type = deps.store().styleType(ownerId, styleTypeId);
  if (!type) throw badRequest(`styleTypeId: unknown style type '${styleTypeId}'`);
  return type;
}

export function checkStyleLevel(deps: CatalogueDeps, ownerId: string, styleLevelId: string): void {
  if (!deps.store().styleLevelIds(ownerId).has(styleLevelId)) {
    throw badRequest(`styleLevelId: '${styleLevelId}' is not a parentId of any style type`);
  }
}

export function checkProperties(
  deps: CatalogueDeps,
  ownerId: string,
  category: PropertyCategory,
  ids: readonly string[] | null | undefined,
): void {
  for (const id of ids ?? []) {
    if (deps.store().property(ownerId, id)?.category !== category) {
      throw badRequest(`${category}: unknown ${category} property id '${id}'`);
    }
  }
}

/** Company ids must be the owner, the caller, or reachable from either in the network. */
export function checkCompanies(
  deps: CatalogueDeps,
  callerId: string,
  ownerId: string,
  field: string,
  ids: readonly string[],
): void {
  for (const id of ids) {
    if (!deps.ctx.reaches(ownerId, id) && !deps.ctx.reaches(callerId, id)) {
      throw badRequest(`${field}: unknown company id '${id}'`);
    }
  }
}

/** Image file ids must be files the caller registered with POST /files and uploaded. */
export function checkImages(
  deps: CatalogueDeps,
  callerId: string,
  ids: readonly string[] | null | undefined,
): void {
  for (const id of ids ?? []) {
    if (!deps.files().uploadedFor(callerId, id)) {
      throw badRequest(`imagesFileIds: '${id}' is not an uploaded file of this company`);
    }
  }
}

export function normaliseWeight(
  weight: { unit: string | null; value: number | null } | null,
): ProductWeight | null {
  if (weight === null || weight.unit === null || weight.value === null) return null;
  if (!isUnit(weight.unit))
    throw badRequest(`weight.unit: '${weight.unit}' is not a unit of the unit enumeration`);
  return { unit: weight.unit, value: weight.value };
}

export function checkCustomProperties(value: string | null | undefined): void {
  if (value === null || value === undefined) return;
  try {
    JSON.parse(value);
  } catch {
    throw badRequest('customProperties: must be a JSON document held as a string');
  }
}

export function normaliseEcoFootPrint(input: EcoFootPrintInput): EcoFootPrint | null {
  if (input === null) return null;
  return {
    syntheticMaterialPercentage: input.syntheticMaterialPercentage ?? null,
    recycledMaterialPercentage: input.recycledMaterialPercentage ?? null,
    hazardousMaterials: input.hazardousMaterials ?? null,
    recyclabilityAbsenceDisruptor: input.recyclabilityAbsenceDisruptor ?? null,
    recyclabilityCanBeSorted: input.recyclabilityCanBeSorted ?? null,
    recyclabilityCanCollectAtScale: input.recyclabilityCanCollectAtScale ?? null,
    recyclabilityIndustrialScale: input.recyclabilityIndustrialScale ?? null,
    recyclabilityRate: input.recyclabilityRate ?? null,
  };
}

/**
 * What a BOM line holds, reduced to the fields the connectors compare. A fork's copy keeps the "kept" fields
 * (placement, quantity and unit, weight and unit, country) and loses the component and the main flag
 * (spec 02, "Copy fidelity caveat").
 */
export interface LineView {
  id: string;
  bomHeaderId: string;
  placementId?: string | null;
  styleId?: string | null;
  quantity?: number | null;
  quantityUnit?: string | null;
  weight?: number | null;
  weightUnit?: string | null;
  countryOfOrigin?: string | null;
  isMainComponent?: boolean | null;
  createdAt?: string | null;
}

export interface KeptFields {
  placementId: string | null;
  quantity: number | null;
  quantityUnit: string | null;
  weight: number | null;
  weightUnit: string | null;
  countryOfOrigin: string | null;
}

/** The reference a fork drops and a repair puts back. */
export interface ComponentRef {
  styleId: string;
  isMainComponent: boolean;
}

export function keptFields(line: LineView): KeptFields {
  return {
    placementId: line.placementId ?? null,
    quantity: line.quantity ?? null,
    quantityUnit: line.quantityUnit ?? null,
    weight: line.weight ?? null,
    weightUnit: line.weightUnit ?? null,
    countryOfOrigin: line.countryOfOrigin ?? null,
  };
}

/** One string per distinct set of kept values (field order fixed), for grouping. */
export function keptKey(line: LineView): string {
  const f = keptFields(line);
  return JSON.stringify([
    f.placementId,
    f.quantity,
    f.quantityUnit,
    f.weight,
    f.weightUnit,
    f.countryOfOrigin,
  ]);
}

/** "placement bomplc_x, quantity 3 PIECES, weight 2 GRAM, country Portugal": for reasons a person reads. */
export function describeKept(line: LineView): string {
  const f = keptFields(line);
  const amount = (value: number | null, unit: string | null) =>
    value === null ? 'none' : `${value}${unit ? ` ${unit}` : ''}`;
  return [
    `placement ${f.placementId ?? 'none'}`,
    `quantity ${amount(f.quantity, f.quantityUnit)}`,
    `weight ${amount(f.weight, f.weightUnit)}`,
    `country ${f.countryOfOrigin ?? 'none'}`,
  ].join(', ');
}

/** A line lacks its component reference when `styleId` is null or empty (what a fork leaves on copies). */
export function lacksComponent(line: LineView): boolean {
  return !line.styleId;
}

export function componentOf(line: LineView): ComponentRef | null {
  return line.styleId ? { styleId: line.styleId, isMainComponent: line.isMainComponent === true } : null;
}

/** Listing order the API keeps for copies: creation time, then id (ids are time-ordered). */
export function byCreation(a: LineView, b: LineView): number {
  const left = a.createdAt ?? '';
  const right = b.createdAt ?? '';
  if (left !== right) return left < right ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function byId(a: LineView, b: LineView): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

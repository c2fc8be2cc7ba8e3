import type { RowIssue } from '../issues';
import { looseKey, type SheetRow, type CellValue } from '../read/sheet';
import {
  bindLevel,
  levelSources,
  readSource,
  sourceColumns,
  type BoundLevel,
  type HeaderIndex,
} from './bind';
import { optionPicker, profileIndex } from './options';
import type { FlatProfile, MappingProfile } from './schema';
import { cellText } from './values';
import { repeatsHeaderRow } from '../../workbook-cells';

/** Columns a level reads (for carrying blank continuation cells down within one style or variant). */
function levelColumns(level: BoundLevel): string[] {
  return [...new Set(levelSources(level).flatMap((source) => sourceColumns(source).present))];
}

type FlatLevels = { style: BoundLevel; variant: BoundLevel; sku: BoundLevel };

/**
 * Fills a flat row's blank continuation cells: fill-down keys from the row above, and the style's (or
 * variant's) own columns from the row above when it belongs to the same style (variant); then the `optionColumns`
 * columns, whose row issues go to `onIssues`. Stateful: feed rows in order.
 */
export function flatFiller(
  profile: FlatProfile,
  index: HeaderIndex,
  onIssues: (issues: RowIssue[]) => void = () => undefined,
): { levels: FlatLevels; fill: (row: SheetRow) => SheetRow } {
  const levels = {
    style: bindLevel(profile.style, index),
    variant: bindLevel(profile.variant, index),
    sku: bindLevel(profile.sku, index),
  };
  const fillDown = profile.fillDown
    .map((name) => index.find(name))
    .filter((header): header is string => header !== null);
  const keys = new Set([...fillDown, ...Object.values(levels).flatMap((level) => [...level.keyColumns])]);
  for (const level of Object.values(levels)) for (const key of keys) level.keyColumns.add(key);
  // Shopify names a product's options on its first row only, as it gives its Title.
  const optionNames = (profile.optionColumns?.pairs ?? [])
    .map((pair) => index.find(pair.name))
    .filter((header): header is string => header !== null);
  const styleColumns = [...new Set([...levelColumns(levels.style), ...optionNames])];
  const pick = optionPicker(profile, index, (row) =>
    cellText(readSource(levels.style.externalId, row).value),
  );
  const variantColumns = levelColumns(levels.variant);
  let previous: Record<string, CellValue> = {};
  let previousIds: { style: string | null; variant: string | null } = { style: null, variant: null };
  const carry = (cells: Record<string, CellValue>, columns: readonly string[]): void => {
    for (const column of columns)
      if (cells[column] === null || cells[column] === undefined) cells[column] = previous[column] ?? null;
  };
  const fill = (row: SheetRow): SheetRow => {
    // The reader hands each row over once, so its cells can be completed in place.
    const cells = row.cells;
    carry(cells, fillDown);
    const styleId = cellText(readSource(levels.style.externalId, row).value);
    if (styleId !== null && styleId === previousIds.style) carry(cells, styleColumns);
    const issues = pick(row);
    if (issues.length > 0) onIssues(issues);
    const variantId = cellText(readSource(levels.variant.externalId, row).value);
    if (variantId !== null && styleId === previousIds.style && variantId === previousIds.variant)
      carry(cells, variantColumns);
    previous = cells;
    previousIds = { style: styleId, variant: variantId };
    return row;
  };
  return { levels, fill };
}

/** Reads the mapping's `blankValues` placeholders (Shopify's "Default Title") as blank cells; identity without any. */
export function blanker(profile: MappingProfile, index: HeaderIndex): (row: SheetRow) => SheetRow {
  const placeholders = Object.entries(profile.blankValues).flatMap(([name, texts]) => {
    const column = index.find(name);
    return column === null ? [] : [{ column, texts: new Set(texts.map(looseKey)) }];
  });
  if (placeholders.length === 0) return (row) => row;
  return (row) => {
    for (const { column, texts } of placeholders) {
      const text = cellText(row.cells[column]);
      if (text !== null && texts.has(looseKey(text))) row.cells[column] = null;
    }
    return row;
  };
}

/**
 * A row that repeats the sheet's header row (`repeatsHeaderRow`: exports pasted one under the other, a page header):
 * read as data it would be a product named after the columns.
 */
export function repeatsSheetHeader(row: SheetRow): boolean {
  return (
    Object.keys(row.cellErrors ?? {}).length === 0 &&
    repeatsHeaderRow(Object.entries(row.cells).map(([column, value]) => [column, cellText(value)] as const))
  );
}

/**
 * A row that holds no product: one the mapping's `skipRows` names (every listed column blank, read before
 * fill-down), or one that repeats the header row.
 */
export function skipper(profile: MappingProfile, index: HeaderIndex): (row: SheetRow) => boolean {
  const columns = (profile.skipRows?.whenBlank ?? []).map((name) => index.find(name));
  const listedBlank =
    columns.length === 0
      ? () => false
      : (row: SheetRow) =>
          columns.every((column) => column === null || cellText(row.cells[column]) === null) &&
          !columns.some((column) => column !== null && row.cellErrors?.[column] !== undefined);
  return (row) => listedBlank(row) || repeatsSheetHeader(row);
}

/**
 * A function that completes rows the way the profile reads them (flat continuation rows; rows `skipRows` skips
 * leave the carried cells alone); identity for native.
 */
export function continuationFiller(
  profile: MappingProfile,
  headers: readonly string[],
): (row: SheetRow) => SheetRow {
  if (profile.layout !== 'flat') return (row) => row;
  const index = profileIndex(profile, headers);
  const skip = skipper(profile, index);
  const { fill } = flatFiller(profile, index);
  return (row) => (skip(row) ? row : fill(row));
}

import { quoteInput } from '../../input-limits';
import { closeMatches, didYouMean } from '../../traceability/name-matching';
import { UNIT_VALUES, unitSchema } from '../../traceability/schemas/common';
import {
  type DraftCode,
  type DraftComposition,
  type DraftFieldName,
  type DraftFields,
  type FieldOrigin,
} from '../draft';
import { rowIssue, type RowIssue } from '../issues';
import type { SheetRow } from '../read/sheet';
import { COMPANY_FIELDS, type CompanyCells } from './companies';
import { readSource, type BoundLevel, type PropertyType, type SourceRead } from './bind';
import {
  referenceLabels,
  type RawMaterialResolver,
  type ReferenceKind,
  type ReferenceResolver,
} from './references';
import { isPlaceholder, type PlaceholderCells } from './placeholders';
import { resolveNames } from './resolve-names';
import type { MappedField } from './schema';
import {
  cellText,
  parseBoolean,
  parseComposition,
  parseDate,
  readLocaleNumber,
  splitList,
  type DecimalMark,
} from './values';

export interface Piece {
  externalId: string | null;
  externalIdColumn: string | null;
  fields: DraftFields;
  origins: Partial<Record<DraftFieldName, FieldOrigin>>;
  /**
   * What the sheet wrote for a field whose value is converted from it ('Jeans' for the style type id st_jeans,
   * 'yes' for true), so a message can quote the cell and not the id the operator never wrote.
   */
  texts: Partial<Record<DraftFieldName, string>>;
  /** Some value came from a non-key cell of this row. */
  hasOwnData: boolean;
  issues: RowIssue[];
}

export interface ExtractContext {
  resolver: ReferenceResolver;
  companies: CompanyCells;
  dateOrder: 'DMY' | 'MDY';
  /** xlsx: the workbook counts date serials from 1904-01-01 (its 1904 date system). */
  date1904?: boolean;
  /** The decimal mark the file's dialect implies (a `;`-delimited csv: the comma), or null when it implies none. */
  decimalMark: DecimalMark | null;
  rawMaterials: RawMaterialResolver;
  compositionName: string;
  /** Compositions read while the mapping has no rawMaterials table (checked, not written; one warning). */
  unwrittenCompositions?: number;
  /** Placeholder cells ("N/A", "-", "TBD") read as blank in typed values (one warning). */
  placeholders?: PlaceholderCells;
}

const REFERENCE_FIELDS: Partial<Record<MappedField, ReferenceKind>> = {
  styleTypeId: 'styleTypes',
  brands: 'brands',
  seasons: 'seasons',
  collections: 'collections',
  departments: 'departments',
};
const LIST_FIELDS = new Set<MappedField>([
  'brands',
  'seasons',
  'collections',
  'departments',
  'suppliers',
  'vendors',
  'claimIntentions',
]);
const TEXT_FIELDS = new Set<MappedField>(['name', 'description', 'gender', 'color', 'dimension']);
const COMPANY_FIELD_SET = new Set<MappedField>(COMPANY_FIELDS);

/** How Excel shows a big number in General format: one digit, decimals, then E+12 (a code like 12E4 is not matched). */
const SCIENTIFIC = /^-?\d(?:[.,]\d+)?E[+-]\d{2,}$/i;

/** Weight units a message offers when the cell's is not close to any (the whole UnitEnum is 71 values). */
const WEIGHT_UNITS = ['GRAM', 'KILOGRAM', 'MILLIGRAM', 'OUNCE', 'POUNDS', 'METRIC_TON'];

/** Collects one row's values for one level (methods, not closures: this runs three times per row). */
class PieceBuilder {
  readonly piece: Piece;

  constructor(
    private readonly level: BoundLevel,
    private readonly rowNumber: number,
    externalId: string | null,
    externalIdColumn: string | null,
  ) {
    this.piece = {
      externalId,
      externalIdColumn,
      fields: {},
      origins: {},
      texts: {},
      hasOwnData: false,
      issues: [],
    };
  }

  fail(column: string | null, code: RowIssue['code'], reason: string): void {
    this.piece.issues.push(
      rowIssue(this.rowNumber, column, code, reason, this.piece.externalId ?? undefined),
    );
  }

  usable(read: SourceRead): boolean {
    if (read.cellError) {
      this.fail(
        read.cellError.column,
        'cell_error',
        `the cell holds the error ${read.cellError.text} (fix the formula or type the value)`,
      );
      return false;
    }
    if (read.value === null) return false;
    if (read.fromCells && read.column !== null && !this.level.keyColumns.has(read.column))
      this.piece.hasOwnData = true;
    return true;
  }

  /** A typed value's cell holding "N/A", "-" or "TBD": read as blank, counted for the warning. */
  placeholder(read: SourceRead, context: ExtractContext): boolean {
    if (!read.fromCells || !isPlaceholder(read.value)) return false;
    context.placeholders?.add(this.rowNumber, read.column, read.value);
    return true;
  }

  set<K extends DraftFieldName>(
    field: K,
    value: DraftFields[K],
    column: string | null,
    fromMapping = false,
    text?: string,
  ): void {
    this.piece.fields[field] = value;
    if (text !== undefined) this.piece.texts[field] = text;
    this.piece.origins[field] = {
      column,
      rowNumber: this.rowNumber,
      ...(fromMapping ? { fromMapping } : {}),
    };
  }
}

export function extractPiece(level: BoundLevel, row: SheetRow, context: ExtractContext): Piece {
  const idRead = readSource(level.externalId, row);
  const externalId = idRead.cellError ? null : cellText(idRead.value);
  const b = new PieceBuilder(level, row.rowNumber, externalId, idRead.column);
  const piece = b.piece;
  if (idRead.cellError)
    b.fail(idRead.cellError.column, 'cell_error', `the cell holds the error ${idRead.cellError.text}`);

  let weightValue: { value: number; column: string | null; text: string } | null = null;
  let weightFailed = false;
  let weightUnit: { unit: string; column: string | null; fromCells: boolean; text: string } | null = null;
  for (const [field, source] of level.fields) {
    const read = readSource(source, row);
    const items =
      LIST_FIELDS.has(field) && read.value !== null && !read.cellError
        ? splitList(cellText(read.value) ?? '', source.split ?? ';')
        : null;
    // README: "Blank cells never clear anything". A cell of separators only (";") lists nothing: it is a blank cell,
    // not an empty list, which would clear the field (and stop a child inheriting it).
    if (items?.length === 0) continue;
    if ((field === 'weightValue' || field === 'composition') && b.placeholder(read, context)) continue;
    if (!b.usable(read)) continue;
    const text = cellText(read.value) ?? '';
    if (TEXT_FIELDS.has(field)) {
      b.set(field as 'name', text, read.column);
    } else if (field === 'styleLevelId') {
      const level = context.resolver.styleLevel(text);
      if (level.ok) b.set('styleLevelId', level.id, read.column, false, text);
      else b.fail(read.column, level.code, level.reason);
    } else if (field === 'isComponent') {
      const flag = parseBoolean(read.value);
      if (flag === null)
        b.fail(read.column, 'bad_boolean', `'${text}' is not yes/no (use true, false, yes, no, 1 or 0)`);
      else b.set('isComponent', flag, read.column, !read.fromCells, read.fromCells ? text : undefined);
    } else if (field === 'weightValue') {
      const number = readLocaleNumber(read.value, context.decimalMark);
      if (!number.ok || number.value < 0) {
        weightFailed = true;
        b.fail(
          read.column,
          'bad_number',
          number.ok || number.reason === 'is not a number'
            ? `'${text}' is not a weight (a number such as 250 or 1,250.5)`
            : `weight '${text}' ${number.reason}`,
        );
      } else weightValue = { value: number.value, column: read.column, text };
    } else if (field === 'weightUnit') {
      weightUnit = { unit: text.toUpperCase(), column: read.column, fromCells: read.fromCells, text };
    } else if (field === 'composition') {
      const sections = parseComposition(text);
      if (typeof sections === 'string') {
        b.fail(
          read.column,
          'bad_composition',
          `composition '${quoteInput(text)}' cannot be used: ${sections}`,
        );
        continue;
      }
      if (context.rawMaterials.empty) {
        context.unwrittenCompositions = (context.unwrittenCompositions ?? 0) + 1;
        continue;
      }
      const composition: DraftComposition[] = [];
      let resolvedAll = true;
      for (const section of sections) {
        const lines: DraftComposition['lines'] = [];
        for (const share of section.shares) {
          const resolved = context.rawMaterials.resolve(share.material);
          // One root line per raw material: two lines of one id cannot be told apart on the platform, and spec 02
          // tree rule 1 never checks completeness, so a line lost between them would go unnoticed.
          const twin = resolved.ok ? lines.find((line) => line.rawMaterialId === resolved.id) : undefined;
          if (resolved.ok && twin) {
            resolvedAll = false;
            b.fail(
              read.column,
              'bad_composition',
              `'${twin.material}' and '${share.material}' both resolve to raw material '${resolved.id}'` +
                `${section.name === null ? '' : ` in '${quoteInput(section.name)}'`}: list it once, or give each its own id in the mapping's rawMaterials`,
            );
          } else if (resolved.ok)
            lines.push({
              material: share.material,
              rawMaterialId: resolved.id,
              percentage: share.percentage,
            });
          else {
            resolvedAll = false;
            b.fail(read.column, 'bad_composition', resolved.reason);
          }
        }
        composition.push({ name: section.name ?? context.compositionName, lines });
      }
      if (resolvedAll) b.set('composition', composition, read.column, false, text);
    } else if (LIST_FIELDS.has(field) || field === 'styleTypeId' || field === 'mainSupplier') {
      const kind = REFERENCE_FIELDS[field];
      const company = COMPANY_FIELD_SET.has(field);
      const { ids, failures } = resolveNames(
        items ?? [text],
        (item) =>
          kind
            ? context.resolver.resolve(kind, item)
            : company
              ? context.companies.resolve(item)
              : { ok: true, id: item },
        kind ? referenceLabels[kind] : company ? 'company' : field,
      );
      for (const failure of failures) b.fail(read.column, failure.code, failure.reason);
      if (ids !== undefined) {
        if (field === 'styleTypeId' || field === 'mainSupplier')
          b.set(field, ids[0] ?? '', read.column, false, text);
        else b.set(field as 'brands', ids, read.column, false, text);
      }
    }
  }
  // Spec 01, UnitEnum: "Shared by order lines, BOM lines and weights. Exactly these values".
  if (
    weightUnit &&
    (weightValue !== null || weightUnit.fromCells) &&
    !unitSchema.safeParse(weightUnit.unit).success
  ) {
    const close = closeMatches(weightUnit.unit, UNIT_VALUES);
    b.fail(
      weightUnit.column,
      'bad_unit',
      `weight unit '${weightUnit.unit}' is not one of the API's units` +
        (close.length > 0 ? didYouMean(close) : `; weights use ${WEIGHT_UNITS.join(', ')}`),
    );
  } else if (weightValue && weightUnit)
    b.set(
      'weight',
      { unit: weightUnit.unit, value: weightValue.value },
      weightValue.column,
      false,
      `${weightValue.text} ${weightUnit.text}`,
    );
  else if (weightValue)
    b.fail(
      weightValue.column,
      'missing_required',
      `weight ${weightValue.value} has no unit (map a weightUnit column or constant)`,
    );
  else if (weightUnit?.fromCells && !weightFailed)
    b.fail(weightUnit.column, 'missing_required', `weight unit ${weightUnit.unit} has no weight value`);

  const codes: DraftCode[] = [];
  for (const code of level.codes) {
    const read = readSource(code.source, row);
    const gtin = code.byDigits !== undefined || (code.codeId !== null && code.codeId in GTIN_DIGITS);
    if (gtin && b.placeholder(read, context)) continue;
    if (!b.usable(read)) continue;
    const codeValue = cellText(read.value);
    const byDigits = code.byDigits;
    const codeId =
      codeValue === null
        ? null
        : (code.codeId ?? (/^\d+$/.test(codeValue) ? byDigits?.get(codeValue.length) : undefined) ?? null);
    // An EAN in a General-format Excel column is saved as 7.35123E+12: its last digits are gone for good.
    if (codeValue !== null && SCIENTIFIC.test(codeValue))
      b.fail(
        read.column,
        'bad_code',
        `${code.codeId ?? 'code'} '${codeValue}' is in scientific notation: Excel rounded the number and its last digits are lost. ` +
          `Format the column as text in the source workbook, re-enter or re-export the codes, and save again`,
      );
    else if (codeValue !== null && codeId === null && byDigits) {
      const digits = /^\d+$/.test(codeValue);
      const shortest = Math.min(...byDigits.keys());
      b.fail(
        read.column,
        'bad_code',
        `'${codeValue}' ${digits ? `has ${codeValue.length} digits` : 'is not only digits'}; a barcode has ` +
          [...byDigits].map(([length, type]) => `${length} (${type})`).join(' or ') +
          // Excel drops a GTIN's leading zeros from a number cell.
          (digits && codeValue.length < shortest
            ? '; if leading zeros were lost, format the column as text'
            : ''),
      );
    } else if (codeValue !== null && codeId !== null) {
      const barcode = byDigits ? null : gtinOf(codeId, codeValue);
      if (barcode === null || barcode.ok) {
        const checkedId = barcode?.codeId ?? codeId;
        // An EAN column read by its digits, as byDigits is: the product's EAN_GTIN_13 is an old barcode.
        const givesTypes = byDigits
          ? [...new Set(byDigits.values())]
          : checkedId !== codeId
            ? [checkedId, codeId]
            : undefined;
        // An EAN column's 12 digits beside the same UPC_GTIN_12 from its own column are one code, not two.
        const twin =
          checkedId === 'UPC_GTIN_12'
            ? codes.find((other) => other.codeId === checkedId && other.codeValue === codeValue)
            : undefined;
        if (twin && givesTypes) twin.givesTypes = [...new Set([...(twin.givesTypes ?? []), ...givesTypes])];
        else if (!twin)
          codes.push({
            codeId: checkedId,
            codeValue,
            column: read.column,
            rowNumber: row.rowNumber,
            ...(givesTypes ? { givesTypes } : {}),
          });
      } else b.fail(read.column, 'bad_code', barcode.reason);
    }
  }
  if (codes.length > 0) b.set('codes', codes, codes[0]?.column ?? null);

  const properties: Record<string, string | number | boolean> = {};
  const propertyTexts: string[] = [];
  let propertyColumn: string | null = null;
  for (const property of level.customProperties) {
    const read = readSource(property.source, row);
    if (property.type !== 'text' && b.placeholder(read, context)) continue;
    if (!b.usable(read)) continue;
    propertyColumn ??= read.column;
    const converted = convertProperty(read, property.type, context);
    if (typeof converted === 'object') b.fail(read.column, converted.code, converted.reason);
    else {
      properties[property.key] = converted;
      propertyTexts.push(`${property.key} ${cellText(read.value) ?? ''}`);
    }
  }
  if (Object.keys(properties).length > 0)
    b.set('customProperties', JSON.stringify(properties), propertyColumn, false, propertyTexts.join('; '));
  return piece;
}

const GTIN_DIGITS: Readonly<Record<string, number>> = { UPC_GTIN_12: 12, EAN_GTIN_13: 13 };

/**
 * Spec 01's barcode types by their digits. Excel's General format drops a GTIN's leading zeros (0012345678905 is
 * saved as 12345678905), which written as it reads is no barcode at all. A GTIN-13 whose first digit is 0 is the
 * UPC-A of its other 12, so 12 digits in an EAN_GTIN_13 column are that UPC_GTIN_12 whether the cell lost its zero or
 * held a UPC (byDigits and the plan's UPC repair read 12 digits the same way). Null: not a barcode type.
 */
function gtinOf(
  codeId: string,
  value: string,
): { ok: true; codeId: string } | { ok: false; reason: string } | null {
  const length = GTIN_DIGITS[codeId];
  if (length === undefined) return null;
  const digits = /^\d+$/.test(value);
  if (digits && value.length === length) return { ok: true, codeId };
  if (digits && codeId === 'EAN_GTIN_13' && value.length === 12) return { ok: true, codeId: 'UPC_GTIN_12' };
  return {
    ok: false,
    reason:
      `${codeId} '${quoteInput(value)}' ${digits ? `has ${value.length} digits` : 'is not only digits'}; ` +
      `${codeId === 'EAN_GTIN_13' ? 'an EAN_GTIN_13 has 13 digits (12 are read as a UPC_GTIN_12)' : 'a UPC_GTIN_12 has 12 digits'}` +
      (digits && value.length < length
        ? '; if leading zeros were lost, format the column as text in the source workbook, re-enter the codes and save again'
        : ''),
  };
}

function convertProperty(
  read: SourceRead,
  type: PropertyType,
  { dateOrder, decimalMark, date1904 }: ExtractContext,
): string | number | boolean | { code: RowIssue['code']; reason: string } {
  const text = cellText(read.value) ?? '';
  if (type === 'number') {
    const number = readLocaleNumber(read.value, decimalMark);
    return number.ok ? number.value : { code: 'bad_number', reason: `'${text}' ${number.reason}` };
  }
  if (type === 'boolean')
    return parseBoolean(read.value) ?? { code: 'bad_boolean', reason: `'${text}' is not yes/no` };
  if (type === 'date') {
    return (
      parseDate(read.value, dateOrder, date1904 === true) ?? {
        code: 'bad_date',
        reason: `'${text}' is not a date (use YYYY-MM-DD, ${dateOrder === 'DMY' ? 'DD/MM/YYYY' : 'MM/DD/YYYY'} or an Excel date)`,
      }
    );
  }
  return text;
}

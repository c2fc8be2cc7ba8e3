import { codeTypeOfHeader, type DraftFieldName, type MappedSheet, type ProductDraft } from '../draft';
import { likelyMeant } from '../../config-problems';
import { caseFoldedKey, caseTwinIssue, rowIssue, type RowIssue } from '../issues';
import type { CsvDelimiter, SheetRow } from '../read/sheet';
import {
  bindLevel,
  bindSource,
  HeaderIndex,
  levelSources,
  missingColumnsError,
  readSource,
  unknownColumnsError,
  sourceColumns,
  type BoundSource,
} from './bind';
import { CompanyCells, type LoadCompanies } from './companies';
import { blanker, flatFiller, repeatsSheetHeader, skipper } from './continuation';
import { addRowNumber, mergePiece, newDraft, type FieldTexts } from './draft-merge';
import { extractPiece, type ExtractContext } from './extract';
import { optionPairColumns, optionPicker, profileIndex } from './options';
import { RawMaterialResolver, ReferenceResolver, type ReferenceLists } from './references';
import {
  productLevels,
  type FlatProfile,
  type LevelMapping,
  type MappedField,
  type MappingProfile,
  type NativeProfile,
  type ProductLevel,
  type ValueSource,
} from './schema';
import { cellText } from './values';
import { PlaceholderCells } from './placeholders';
import { withoutTrailingNotes } from './notes';
import { notesWarning, type NoteRow } from '../../trailing-notes';
import { decimalMarkOfDelimiter } from '../../number-text';
import { repeatedHeaderWarning } from '../../workbook-cells';

export interface SheetSource {
  headers: readonly string[];
  /** csv: the file's delimiter, whose locale tells how "1,250" reads (see `readLocaleNumber`). */
  delimiter?: CsvDelimiter | null;
  /** xlsx: the workbook counts date serials from 1904-01-01, so a date column's plain number is read from there. */
  date1904?: boolean;
  rows(): AsyncIterable<SheetRow>;
}

class DraftBook {
  readonly drafts = new Map<string, ProductDraft>();
  readonly issues: RowIssue[] = [];
  /** Flat layout: products whose first row already has its `duplicate_external_id` issue. */
  readonly duplicateFirstRows = new Set<string>();
  /** Flat layout: the cells behind each product's converted fields, for a later row that disagrees. */
  readonly texts = new Map<ProductDraft, FieldTexts>();
  skipped = 0;
  /** Rows skipped as repeats of the header row, named in a warning. */
  readonly repeatedHeaders: number[] = [];

  skip(row: SheetRow): void {
    this.skipped++;
    if (repeatsSheetHeader(row)) this.repeatedHeaders.push(row.rowNumber);
  }

  /**
   * Keys by their lower case: a key typed in another case on another row, at the same level, is flagged, not made a
   * second product.
   */
  private readonly byCase = new Map<string, ProductDraft>();

  add(draft: ProductDraft): void {
    this.drafts.set(draft.externalId, draft);
    const folded = caseFoldedKey(draft.level ?? 'product', draft.externalId);
    if (!this.byCase.has(folded)) this.byCase.set(folded, draft);
  }

  /**
   * The row's issue when its key is another row's in another case (spec 01: externalIds are compared as given, so
   * 'fw26-knt-01' would be a second product beside 'FW26-KNT-01', which the user meant as the same one).
   */
  caseTwinIssue(
    rowNumber: number,
    column: string | null,
    level: string,
    externalId: string,
  ): RowIssue | null {
    // A key at another level is another product (a Shopify handle 'bc-upc' beside its SKU 'BC-UPC').
    const twin = this.byCase.get(caseFoldedKey(level, externalId));
    if (twin === undefined || twin.externalId === externalId) return null;
    const first = twin.rowNumbers[0] ?? 0;
    return caseTwinIssue(
      { rowNumber, column, level, externalId },
      `'${twin.externalId}' on row ${first}`,
      `on row ${first}`,
    );
  }

  textsOf(draft: ProductDraft): FieldTexts {
    let texts = this.texts.get(draft);
    if (!texts) this.texts.set(draft, (texts = {}));
    return texts;
  }
}

/**
 * A mapping file that names a column the sheet lacks is refused before any row is read (built-in profiles read
 * optional columns and set `ignoreMissingColumns`).
 */
function requireMappedColumns(
  profile: MappingProfile,
  sources: BoundSource[],
  extra: string[],
  index: HeaderIndex,
): void {
  if (profile.ignoreMissingColumns) return;
  const missing = [
    ...new Set([
      ...sources.flatMap((source) => sourceColumns(source).missing),
      ...extra.filter((name) => index.find(name) === null),
    ]),
  ];
  if (missing.length > 0) throw unknownColumnsError(profile.name, missing, index.headers);
}

function requireColumns(profile: MappingProfile, sources: BoundSource[], headers: readonly string[]): void {
  // Keys are required even when marked optional: a row without one cannot be identified.
  const missing = [
    ...new Set(
      sources.flatMap((source) => {
        const columns = sourceColumns(source);
        return [...columns.missing, ...columns.optionalMissing];
      }),
    ),
  ];
  if (missing.length > 0) throw missingColumnsError(profile.name, missing, headers);
}

/** An unused column a slip away from a column the profile reads and the sheet lacks names that column. */
function unusedWarning(profile: MappingProfile, index: HeaderIndex): string[] {
  const unused = index.headers.filter((header) => !index.used.has(header));
  const missed = [...index.missed];
  const named = unused.map((header) => {
    const meant = likelyMeant(header, missed);
    return meant === undefined
      ? `'${header}'`
      : `'${header}' (did you mean '${meant}'? the sheet has no such column)`;
  });
  return unused.length > 0 ? [`columns not used by profile '${profile.name}': ${named.join(', ')}`] : [];
}

async function mapNative(
  sheet: SheetSource,
  profile: NativeProfile,
  context: ExtractContext,
  book: DraftBook,
  index: HeaderIndex,
): Promise<number> {
  const level = bindLevel(profile.mapping, index);
  const parent = bindSource(profile.parentExternalId, index);
  const levelSource = profile.level ? bindSource(profile.level, index) : null;
  requireColumns(profile, [level.externalId], index.headers);
  requireMappedColumns(
    profile,
    [...levelSources(level), parent, ...(levelSource ? [levelSource] : [])],
    [
      ...(profile.skipRows?.whenBlank ?? []),
      ...Object.keys(profile.blankValues),
      ...optionPairColumns(profile),
    ],
    index,
  );
  const skip = skipper(profile, index);
  const blank = blanker(profile, index);
  const pick = optionPicker(profile, index, (row) => cellText(readSource(level.externalId, row).value));
  const prepare = context.companies.preparer([level]);
  let count = 0;
  for await (const sourceRow of sheet.rows()) {
    count++;
    const row = blank(sourceRow);
    if (skip(row)) {
      book.skip(row);
      continue;
    }
    book.issues.push(...pick(row));
    await prepare(row);
    const piece = extractPiece(level, row, context);
    book.issues.push(...piece.issues);
    if (piece.externalId === null) {
      if (piece.issues.length === 0)
        book.issues.push(
          rowIssue(
            row.rowNumber,
            piece.externalIdColumn,
            'missing_required',
            'the key is blank; every row needs one to name its product',
          ),
        );
      continue;
    }
    const parentRead = readSource(parent, row);
    if (parentRead.cellError)
      book.issues.push(
        rowIssue(
          row.rowNumber,
          parentRead.column,
          'cell_error',
          `the cell holds the error ${parentRead.cellError.text}`,
          piece.externalId,
        ),
      );
    let productLevel: ProductLevel | null = null;
    if (levelSource) {
      const read = readSource(levelSource, row);
      const text = cellText(read.value)?.toLowerCase() ?? null;
      if (text !== null) {
        productLevel = (productLevels as readonly string[]).includes(text) ? (text as ProductLevel) : null;
        if (productLevel === null)
          book.issues.push(
            rowIssue(
              row.rowNumber,
              read.column,
              'invalid_level',
              `level '${text}' is not style, variant or sku`,
              piece.externalId,
            ),
          );
      }
    }
    const existing = book.drafts.get(piece.externalId);
    const twin = existing
      ? null
      : book.caseTwinIssue(
          row.rowNumber,
          piece.externalIdColumn,
          productLevel ?? 'product',
          piece.externalId,
        );
    if (twin) {
      book.issues.push(twin);
      continue;
    }
    if (existing) {
      const first = existing.rowNumbers[0] ?? 0;
      book.issues.push(
        rowIssue(
          row.rowNumber,
          piece.externalIdColumn,
          'duplicate_external_id',
          `the key '${piece.externalId}' is also on row ${first}; each product needs its own`,
          piece.externalId,
        ),
        rowIssue(
          first,
          existing.externalIdColumn,
          'duplicate_external_id',
          `the key '${piece.externalId}' is also on row ${row.rowNumber}; each product needs its own`,
          piece.externalId,
        ),
      );
      existing.rowNumbers.push(row.rowNumber);
      continue;
    }
    const draft = newDraft(
      { ...piece, externalId: piece.externalId },
      productLevel,
      cellText(parentRead.value),
      parentRead.column,
      row.rowNumber,
    );
    draft.referenceOnly = false;
    book.add(draft);
  }
  return count;
}

async function mapFlat(
  sheet: SheetSource,
  profile: FlatProfile,
  context: ExtractContext,
  book: DraftBook,
  index: HeaderIndex,
): Promise<number> {
  const { levels, fill } = flatFiller(profile, index, (issues) => book.issues.push(...issues));
  requireColumns(
    profile,
    [levels.style.externalId, levels.variant.externalId, levels.sku.externalId],
    index.headers,
  );
  requireMappedColumns(
    profile,
    [...levelSources(levels.style), ...levelSources(levels.variant), ...levelSources(levels.sku)],
    [
      ...profile.fillDown,
      ...(profile.skipRows?.whenBlank ?? []),
      ...Object.keys(profile.blankValues),
      ...optionPairColumns(profile),
    ],
    index,
  );
  const skip = skipper(profile, index);
  const blank = blanker(profile, index);
  const prepare = context.companies.preparer([levels.style, levels.variant, levels.sku]);
  let count = 0;
  for await (const sourceRow of sheet.rows()) {
    count++;
    const unfilled = blank(sourceRow);
    if (skip(unfilled)) {
      book.skip(unfilled);
      continue;
    }
    const row = fill(sourceRow);
    await prepare(row);
    const style = extractPiece(levels.style, row, context);
    const variant = extractPiece(levels.variant, row, context);
    const sku = extractPiece(levels.sku, row, context);
    book.issues.push(...style.issues, ...variant.issues, ...sku.issues);
    const chain: Array<[ProductLevel, typeof style]> = [
      ['style', style],
      ['variant', variant],
      ['sku', sku],
    ];
    let parentId: string | null = null;
    let parentColumn: string | null = null;
    for (const [levelName, piece] of chain) {
      if (piece.externalId === null) {
        if (!piece.issues.some((issue) => issue.column === piece.externalIdColumn)) {
          book.issues.push(
            rowIssue(
              row.rowNumber,
              piece.externalIdColumn,
              'missing_required',
              `the ${levelName} key is blank, so the row's ${levelName} cannot be identified`,
            ),
          );
        }
        break;
      }
      const existing = book.drafts.get(piece.externalId);
      const twin = existing
        ? null
        : book.caseTwinIssue(row.rowNumber, piece.externalIdColumn, levelName, piece.externalId);
      if (twin) {
        book.issues.push(twin);
        break;
      }
      if (!existing) {
        const draft = newDraft(
          { ...piece, externalId: piece.externalId },
          levelName,
          parentId,
          parentColumn,
          row.rowNumber,
        );
        book.add(draft);
        // SKUs are never merged (a SKU key on a second row is a duplicate), so only parents keep their cells.
        if (levelName !== 'sku' && Object.keys(piece.texts).length > 0)
          book.texts.set(draft, { ...piece.texts });
      } else if (
        levelName === 'sku' ||
        existing.level !== levelName ||
        existing.parentExternalId !== parentId
      ) {
        const first = existing.rowNumbers[0] ?? 0;
        const reason = `${levelName} key '${piece.externalId}' is already used on row ${first}${existing.level !== levelName ? ` by a ${existing.level ?? 'product'}` : existing.parentExternalId !== parentId ? ` under '${existing.parentExternalId ?? ''}'` : ''}`;
        book.issues.push(
          rowIssue(row.rowNumber, piece.externalIdColumn, 'duplicate_external_id', reason, piece.externalId),
        );
        // The product is rejected as a whole, so its first row goes to the rejects file too (a SKU's has no child
        // to take it there): fixing the other row and retrying then imports both.
        if (!book.duplicateFirstRows.has(piece.externalId)) {
          book.duplicateFirstRows.add(piece.externalId);
          book.issues.push(
            rowIssue(
              first,
              existing.externalIdColumn,
              'duplicate_external_id',
              `${existing.level ?? 'product'} key '${piece.externalId}' is used again on row ${row.rowNumber}${existing.level !== levelName ? ` by a ${levelName}` : existing.parentExternalId !== parentId ? ` under '${parentId ?? ''}'` : ''}`,
              piece.externalId,
            ),
          );
        }
        addRowNumber(existing.rowNumbers, row.rowNumber);
        break;
      } else {
        book.issues.push(...mergePiece(existing, piece, row.rowNumber, levelName, book.textsOf(existing)));
      }
      parentId = piece.externalId;
      parentColumn = piece.externalIdColumn;
    }
  }
  return count;
}

function describe(source: ValueSource): string {
  return source.column ?? source.template ?? String(source.constant);
}

/** Column (or template) that feeds each field, to name it in a "missing" issue. */
export function describeColumns(
  mapping: LevelMapping,
  headers: readonly string[],
): Partial<Record<DraftFieldName, string>> {
  const columns: Partial<Record<DraftFieldName, string>> = {};
  for (const [field, source] of Object.entries(mapping.fields) as Array<[MappedField, ValueSource]>) {
    if (field === 'weightValue') columns.weight = describe(source);
    else if (field !== 'weightUnit') columns[field] = describe(source);
  }
  const firstCode = mapping.codes[0];
  const firstCodeColumn = mapping.autoCodeColumns
    ? headers.find((header) => codeTypeOfHeader(header) !== null)
    : undefined;
  columns.codes = firstCode ? describe(firstCode.source) : (firstCodeColumn ?? 'codes');
  return columns;
}

/** Reads the reference lists (an API call): `mapRows` calls it only once the sheet's columns passed and a row came. */
export type LoadReferences = () => Promise<ReferenceLists>;

/** The sheet, with `load` run before its first row: a sheet without the columns or rows it needs never calls it. */
function loadingFirst(sheet: SheetSource, load: () => Promise<void>): SheetSource {
  return {
    headers: sheet.headers,
    ...(sheet.delimiter !== undefined ? { delimiter: sheet.delimiter } : {}),
    ...(sheet.date1904 !== undefined ? { date1904: sheet.date1904 } : {}),
    async *rows() {
      let loaded = false;
      for await (const row of sheet.rows()) {
        if (!loaded) {
          await load();
          loaded = true;
        }
        yield row;
      }
    },
  };
}

/**
 * Turns sheet rows into product drafts with the profile: values converted, reference names resolved
 * to ids, flat rows folded into their style and variant. Cell-level problems become row issues; the
 * rows keep streaming. Throws PlmFileError when the sheet lacks the columns that identify products. Given a loader
 * for `references`, it reads them only after those checks, at the first row. Given `companies`, the supplier, vendor
 * and main-supplier cells resolve to company ids as each row is read, before a flat style's rows are compared (the
 * companies are read at the first row giving such a cell); without it they stay as the sheet gives them.
 */
export async function mapRows(
  source: SheetSource,
  profile: MappingProfile,
  references: ReferenceLists | LoadReferences = {},
  companies?: LoadCompanies,
): Promise<MappedSheet> {
  const index = profileIndex(profile, source.headers);
  const context: ExtractContext = {
    resolver: new ReferenceResolver(typeof references === 'function' ? {} : references),
    companies: new CompanyCells(companies),
    dateOrder: profile.dateOrder,
    ...(source.date1904 === true ? { date1904: true } : {}),
    decimalMark: decimalMarkOfDelimiter(source.delimiter),
    rawMaterials: new RawMaterialResolver(profile.rawMaterials),
    compositionName: profile.compositionName,
    placeholders: new PlaceholderCells(),
  };
  const notes: NoteRow[] = [];
  const withoutNotes = withoutTrailingNotes(source, notes);
  const sheet =
    typeof references === 'function'
      ? loadingFirst(withoutNotes, async () => {
          context.resolver = new ReferenceResolver(await references());
        })
      : withoutNotes;
  const book = new DraftBook();
  const rowCount =
    profile.layout === 'native'
      ? await mapNative(sheet, profile, context, book, index)
      : await mapFlat(sheet, profile, context, book, index);
  const fieldColumns = {
    style: describeColumns(profile.layout === 'native' ? profile.mapping : profile.style, sheet.headers),
    variant: describeColumns(profile.layout === 'native' ? profile.mapping : profile.variant, sheet.headers),
    sku: describeColumns(profile.layout === 'native' ? profile.mapping : profile.sku, sheet.headers),
  };
  return {
    drafts: [...book.drafts.values()],
    issues: book.issues,
    warnings: [
      ...unusedWarning(profile, index),
      ...[
        repeatedHeaderWarning(book.repeatedHeaders, 'product'),
        notesWarning(notes, 'product'),
        context.placeholders?.warning(),
      ].filter((text) => text !== undefined),
      ...(context.unwrittenCompositions
        ? [
            `${context.unwrittenCompositions} composition cell(s) were checked but not written: mapping '${profile.name}' has no rawMaterials table naming the raw-material id of each material`,
          ]
        : []),
    ],
    rowCount: rowCount + notes.length,
    skippedRows: book.skipped + notes.length,
    fieldColumns,
  };
}

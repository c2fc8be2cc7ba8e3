import { neverCalculatedMessage } from '../../input-limits';
import type { MappedSheet } from '../draft';
import { PlmFileError } from '../issues';
import { openSheet } from '../read/open-sheet';
import type { OpenedSheet, ReadOptions } from '../read/sheet';
import { bindLevel, bindSource, HeaderIndex, levelSources, sourceColumns } from './bind';
import { mapRows } from './map-rows';
import { optionColumnNames, optionPairColumns } from './options';
import type { LoadCompanies } from './companies';
import type { ReferenceLists } from './references';
import type { LoadReferences } from './map-rows';
import type { MappingProfile } from './schema';

export type SheetInfo = Omit<OpenedSheet, 'rows'>;

export interface ParsedSheet extends MappedSheet {
  sheet: SheetInfo;
}

export interface ParseOptions {
  profile: MappingProfile;
  /** The lists, or a loader `mapRows` calls only once the sheet's columns passed (see `mapRows`). */
  references?: ReferenceLists | LoadReferences;
  /** Every company the key sees, read only when a supplier, vendor or main-supplier cell is given. */
  companies?: LoadCompanies;
  read?: ReadOptions;
}

/** Every column name a profile reads: the header row is the row that holds most of them. */
export function profileColumns(profile: MappingProfile): string[] {
  const none = new HeaderIndex([], optionColumnNames(profile));
  const levels =
    profile.layout === 'native' ? [profile.mapping] : [profile.style, profile.variant, profile.sku];
  const sources = levels.flatMap((mapping) => levelSources(bindLevel(mapping, none)));
  if (profile.layout === 'native') {
    sources.push(bindSource(profile.parentExternalId, none));
    if (profile.level) sources.push(bindSource(profile.level, none));
  }
  return [
    ...new Set([
      ...sources.flatMap((source) => {
        const columns = sourceColumns(source);
        return [...columns.missing, ...columns.optionalMissing];
      }),
      ...optionPairColumns(profile),
    ]),
  ];
}

/**
 * Reads a product sheet and maps it with a profile: the first, API-free step of a PLM import. Throws
 * PlmFileError when the file as a whole cannot be used (nothing is imported); bad rows come back as issues.
 */
export async function parseProductSheet(path: string, options: ParseOptions): Promise<ParsedSheet> {
  const sheetName = options.read?.sheetName ?? options.profile.sheet;
  const opened = await openSheet(path, {
    expectedHeaders: profileColumns(options.profile),
    profileName: options.profile.name,
    ...options.read,
    ...(sheetName !== undefined ? { sheetName } : {}),
  });
  const { rows, ...sheet } = opened;
  const mapped = await mapRows(
    {
      headers: opened.headers,
      delimiter: opened.delimiter,
      ...(opened.date1904 === true ? { date1904: true } : {}),
      rows,
    },
    options.profile,
    options.references,
    options.companies,
  );
  if (mapped.rowCount - mapped.skippedRows === 0) {
    throw new PlmFileError(
      'no_data_rows',
      sheet.blankFormula !== undefined && sheet.sheetName !== null
        ? `${path}: ${neverCalculatedMessage(sheet.sheetName, sheet.blankFormula, sheet.headerRowNumber, 'import')}`
        : `${path} has a header row (row ${sheet.headerRowNumber}) but no data rows below it; nothing to import.`,
    );
  }
  const ignored =
    sheet.ignoredSheets.length > 0
      ? [
          `read sheet '${sheet.sheetName ?? ''}'; ignored sheet(s) ${sheet.ignoredSheets.map((name) => `'${name}'`).join(', ')} (pick one with --sheet or the mapping's "sheet")`,
        ]
      : [];
  return { ...mapped, warnings: [...sheet.warnings, ...ignored, ...mapped.warnings], sheet };
}

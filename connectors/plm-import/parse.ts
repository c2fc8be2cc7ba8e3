import type { MappedSheet } from './draft';
import { PlmFileError } from './issues';
import { mapRows } from './profiles/map-rows';
import type { ReferenceLists } from './profiles/references';
import type { LevelMapping, MappingProfile, ValueSource } from './profiles/schema';
import { openSheet } from './read';
import type { OpenedSheet, ReadOptions } from './read/types';

export type SheetInfo = Omit<OpenedSheet, 'rows'>;

export interface ParsedSheet extends MappedSheet {
  sheet: SheetInfo;
}

export interface ParseOptions {
  profile: MappingProfile;
  references?: ReferenceLists;
  read?: ReadOptions;
}

function sourceNames(source: ValueSource | undefined): string[] {
  if (!source) return [];
  if (source.column !== undefined) return [source.column];
  if (source.template !== undefined)
    return [...source.template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
  return [];
}

function mappingNames(mapping: LevelMapping): string[] {
  return [
    ...sourceNames(mapping.externalId),
    ...Object.values(mapping.fields).flatMap((source) => sourceNames(source)),
    ...mapping.codes.flatMap((code) => sourceNames(code.source)),
  ];
}

/** Every column name a profile reads: the header row is the row that holds most of them. */
export function profileColumns(profile: MappingProfile): string[] {
  const names =
    profile.layout === 'native'
      ? [
          ...mappingNames(profile.mapping),
          ...sourceNames(profile.parentExternalId),
          ...sourceNames(profile.level),
        ]
      : [...mappingNames(profile.style), ...mappingNames(profile.variant), ...mappingNames(profile.sku)];
  return [...new Set(names)];
}

/**
 * Reads a product sheet and maps it with a profile: the first, API-free step of a PLM import. Throws
 * PlmFileError when the file as a whole cannot be used (nothing is imported); bad rows come back as issues.
 */
export async function parseProductSheet(path: string, options: ParseOptions): Promise<ParsedSheet> {
  const sheetName = options.read?.sheetName ?? options.profile.sheet;
  const opened = await openSheet(path, {
    expectedHeaders: profileColumns(options.profile),
    ...options.read,
    ...(sheetName !== undefined ? { sheetName } : {}),
  });
  const { rows, ...sheet } = opened;
  const mapped = await mapRows({ headers: opened.headers, rows }, options.profile, options.references);
  if (mapped.rowCount - mapped.skippedRows === 0) {
    throw new PlmFileError(
      'no_data_rows',
      `${path} has a header row (row ${sheet.headerRowNumber}) but no data rows below it; nothing to import.`,
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

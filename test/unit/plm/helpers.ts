import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinProfile } from '../../../connectors/plm-import/profiles/builtin';
import { mapRows } from '../../../connectors/plm-import/profiles/map-rows';
import type { ReferenceLists } from '../../../connectors/plm-import/profiles/references';
import {
  parseMappingProfile,
  type MappingProfile,
  type MappingProfileInput,
} from '../../../connectors/plm-import/profiles/schema';
import type { CellValue, SheetRow } from '../../../connectors/plm-import/read/sheet';
import { validateDrafts } from '../../../connectors/plm-import/validate';
import referencesJson from '../../fixtures/plm/references.json';

export const fixtures = join(__dirname, '..', '..', 'fixtures', 'plm');
export const badInput = join(__dirname, '..', '..', 'fixtures', 'bad-input');
export const references: ReferenceLists = referencesJson;

export function tempDir(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'plm-test-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** An in-memory sheet: the header row is row 1, data rows from row 2 (blank rows skipped as the reader does). */
export function sheetOf(
  headers: string[],
  rows: CellValue[][],
): { headers: string[]; rows(): AsyncIterable<SheetRow> } {
  return {
    headers,
    async *rows() {
      for (const [index, values] of rows.entries()) {
        const cells: Record<string, CellValue> = {};
        headers.forEach((header, column) => (cells[header] = values[column] ?? null));
        if (Object.values(cells).some((value) => value !== null)) yield { rowNumber: index + 2, cells };
      }
    },
  };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

export const native = (): MappingProfile => builtinProfile('native');
export const flat = (): MappingProfile => builtinProfile('flat');
export const profile = (input: MappingProfileInput): MappingProfile => parseMappingProfile(input);

export async function mapAndValidate(
  profileToUse: MappingProfile,
  headers: string[],
  rows: CellValue[][],
  existing?: Map<string, 'style' | 'variant' | 'sku'>,
) {
  const mapped = await mapRows(sheetOf(headers, rows), profileToUse, references);
  return validateDrafts(mapped, existing ? { existing } : {});
}

/** Native-profile header with the columns most tests need. */
export const nativeHeaders = [
  'externalId',
  'parentExternalId',
  'level',
  'name',
  'styleType',
  'isComponent',
  'color',
  'dimension',
  'PLM_ID',
];

/** The catalogue a flat sheet's continuation rows point into: style 1001 and its black variant, as the API lists them. */
export function classicTeeBlackInCatalogue(): Array<Record<string, unknown>> {
  return [
    {
      id: 's1',
      externalId: '1001',
      name: 'Classic Tee',
      codes: [{ codeId: 'PLM_ID', codeValue: '1001' }],
      styleTypeId: 'st_tshirt',
      isComponent: false,
    },
    {
      id: 'v1',
      externalId: '1001-BLK',
      styleId: 's1',
      name: 'Classic Tee Black',
      codes: [{ codeId: 'PLM_ID', codeValue: '1001-BLK' }],
      color: 'Black',
    },
  ];
}

/** A size of `classicTeeBlackInCatalogue`'s black variant, as the catalogue lists it: its EAN, and a PLM_ID if given. */
export function classicTeeBlackSku(externalId: string, ean: string, plmId?: string): Record<string, unknown> {
  return {
    id: `k_${externalId}`,
    externalId,
    variantId: 'v1',
    styleId: 's1',
    name: externalId,
    dimension: 'M',
    codes: [
      { codeId: 'EAN_GTIN_13', codeValue: ean },
      ...(plmId ? [{ codeId: 'PLM_ID', codeValue: plmId }] : []),
    ],
  };
}

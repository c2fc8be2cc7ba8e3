/**
 * Native-layout PLM sheets for the import's tests and benchmark, using names the sandbox's demo catalogue knows
 * (style type `T-shirts`, brand `Nordic Threads`, season `SS25`).
 */
export const NATIVE_HEADER = [
  'externalId',
  'parentExternalId',
  'level',
  'name',
  'styleType',
  'isComponent',
  'description',
  'gender',
  'brands',
  'seasons',
  'color',
  'dimension',
  'weight',
  'weightUnit',
  'PLM_ID',
] as const;
export type NativeColumn = (typeof NATIVE_HEADER)[number];
export type NativeRow = Partial<Record<NativeColumn, string>> & { externalId: string };

export interface SheetShape {
  /** Prefix of every externalId and code, unique per test so runs never collide in one sandbox. */
  prefix: string;
  styles: number;
  coloursPerStyle: number;
  sizesPerColour: number;
}

/** Products in a sheet of this shape. */
export function productCount(shape: Omit<SheetShape, 'prefix'>): number {
  return shape.styles * (1 + shape.coloursPerStyle * (1 + shape.sizesPerColour));
}

/** One row per product, each style followed by its colours and each colour by its sizes. */
export function nativeRows(shape: SheetShape): NativeRow[] {
  const rows: NativeRow[] = [];
  for (let s = 1; s <= shape.styles; s++) {
    const style = `${shape.prefix}-S${s}`;
    rows.push({
      externalId: style,
      level: 'style',
      name: `Tee ${s}`,
      styleType: 'T-shirts',
      isComponent: 'no',
      description: `Organic tee number ${s}`,
      gender: 'Unisex',
      brands: 'Nordic Threads',
      seasons: 'SS25',
      PLM_ID: style,
    });
    for (let c = 1; c <= shape.coloursPerStyle; c++) {
      const variant = `${style}-C${c}`;
      rows.push({
        externalId: variant,
        parentExternalId: style,
        level: 'variant',
        name: `Tee ${s} colour ${c}`,
        color: `Colour ${c}`,
        PLM_ID: variant,
      });
      for (let z = 1; z <= shape.sizesPerColour; z++) {
        const sku = `${variant}-Z${z}`;
        rows.push({
          externalId: sku,
          parentExternalId: variant,
          level: 'sku',
          name: `Tee ${s} colour ${c} size ${z}`,
          color: `Colour ${c}`,
          dimension: `Size ${z}`,
          weight: String(150 + z * 10),
          weightUnit: 'GRAM',
          PLM_ID: sku,
        });
      }
    }
  }
  return rows;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function toCsv(rows: readonly NativeRow[]): string {
  const lines = [NATIVE_HEADER.join(',')];
  for (const row of rows) lines.push(NATIVE_HEADER.map((column) => csvField(row[column] ?? '')).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Parses a csv written by toCsv or by the rejects writer (quoted fields, CRLF, optional BOM). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (quoted) {
      if (char === '"' && body[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && body[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

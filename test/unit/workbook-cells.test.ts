import * as XLSX from 'xlsx';
import {
  cellRange,
  fillMergesDown,
  HiddenRowsSeen,
  hiddenRowsWarning,
  MAX_MERGE_ROWS,
  pickSheet,
  takeHiddenRows,
} from '../../connectors/workbook-cells';
import { withStaleDimension } from './stale-dimension';

/** A workbook as SheetJS reads it back: the `Hidden` flags of xl/workbook.xml survive a write and a read. */
function book(sheets: ReadonlyArray<{ name: string; rows: unknown[][]; hidden?: 0 | 1 | 2 }>): XLSX.WorkBook {
  const written = XLSX.utils.book_new();
  for (const sheet of sheets)
    XLSX.utils.book_append_sheet(written, XLSX.utils.aoa_to_sheet(sheet.rows), sheet.name);
  written.Workbook = { Sheets: sheets.map((sheet) => ({ name: sheet.name, Hidden: sheet.hidden ?? 0 })) };
  return XLSX.read(XLSX.write(written, { type: 'buffer', bookType: 'xlsx' }), {
    type: 'buffer',
    dense: true,
  });
}

describe('pickSheet: which sheet of a workbook a reader reads', () => {
  // Excel users never see a hidden sheet (a template's archived copy, a lookup list): it is not the product sheet.
  it('by default reads the first visible sheet with cells and names the hidden sheets it skipped', () => {
    const workbook = book([
      { name: 'Archive 2023', rows: [['externalId'], ['OLD']], hidden: 1 },
      { name: 'Lookups', rows: [['code'], ['X']], hidden: 2 },
      { name: 'Empty', rows: [] },
      { name: 'Products', rows: [['externalId'], ['NEW']] },
      { name: 'Later hidden', rows: [['x']], hidden: 1 },
    ]);
    expect(pickSheet(workbook)).toEqual({ name: 'Products', skippedHidden: ['Archive 2023', 'Lookups'] });
  });

  it('a sheet the user names is read even if hidden, with nothing skipped', () => {
    const workbook = book([
      { name: 'Archive 2023', rows: [['externalId'], ['OLD']], hidden: 1 },
      { name: 'Products', rows: [['externalId'], ['NEW']] },
    ]);
    expect(pickSheet(workbook, 'Archive 2023')).toEqual({ name: 'Archive 2023', skippedHidden: [] });
    expect(pickSheet(workbook, 'Nope')).toEqual({ name: undefined, skippedHidden: [] });
  });

  it('without a visible sheet that has cells, the first visible sheet (so the reader says it is empty)', () => {
    const workbook = book([
      { name: 'Archive', rows: [['externalId'], ['OLD']], hidden: 1 },
      { name: 'Blank', rows: [] },
    ]);
    expect(pickSheet(workbook)).toEqual({ name: 'Blank', skippedHidden: ['Archive'] });
  });
});

describe('cellRange: the rows and columns a sheet really fills', () => {
  const bytes = (rows: unknown[][]): Buffer => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), 'Products');
    return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
  };
  const sheetOf = (content: Buffer): XLSX.WorkSheet =>
    XLSX.read(content, { type: 'buffer', dense: true }).Sheets['Products'] as XLSX.WorkSheet;
  const rows = [['externalId', 'name'], ...Array.from({ length: 5 }, (_, i) => [`ST-${i}`, `Tee ${i}`])];

  // Some non-Excel writers leave the <dimension> tag (which SheetJS takes `!ref` from) stale.
  it('a stale <dimension> A1:B2 over 5 data rows: every row counts', () => {
    const sheet = sheetOf(withStaleDimension(bytes(rows), 'A1:B2'));
    expect(sheet['!ref']).toBe('A1:B2');
    expect(cellRange(sheet)).toEqual({ s: { r: 0, c: 0 }, e: { r: 5, c: 1 } });
  });

  it('a <dimension> larger than the cells does not add rows; an empty sheet has no range', () => {
    expect(cellRange(sheetOf(withStaleDimension(bytes(rows), 'A1:Z90000')))).toEqual({
      s: { r: 0, c: 0 },
      e: { r: 5, c: 1 },
    });
    expect(cellRange(sheetOf(bytes([])))).toBeUndefined();
  });
});

describe('fillMergesDown: merged cells as a person reads them', () => {
  const text = (v: string): XLSX.CellObject => ({ t: 's', v });
  it('fills down the first column only, from the given row, and names a merge too tall to copy', () => {
    const data: Array<Array<XLSX.CellObject | undefined> | undefined> = [
      [text('Style'), text('Description'), text('Gender'), text('Note')],
      [text('Tee'), text('Long text'), undefined, text('x')],
      [undefined, undefined, undefined, undefined],
    ];
    const warnings: string[] = [];
    fillMergesDown(
      data,
      [
        { s: { r: 0, c: 1 }, e: { r: 1, c: 1 } }, // starts above fromRow: left alone
        { s: { r: 1, c: 0 }, e: { r: 2, c: 0 } },
        { s: { r: 1, c: 1 }, e: { r: 2, c: 2 } },
        { s: { r: 1, c: 3 }, e: { r: 1 + MAX_MERGE_ROWS, c: 3 } },
      ],
      1,
      warnings,
    );
    expect(data.map((row) => (row ?? []).map((cell) => cell?.v ?? null))).toEqual([
      ['Style', 'Description', 'Gender', 'Note'],
      ['Tee', 'Long text', null, 'x'],
      ['Tee', 'Long text', null, null],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/merged range of 10,?001 rows from row 2 was not copied/),
    ]);
  });
  it('names thousands of merges too tall to copy in one warning, not one warning each', () => {
    const data: Array<Array<XLSX.CellObject | undefined> | undefined> = [
      [{ t: 's', v: 'Style' }],
      [{ t: 's', v: 'Tee' }],
    ];
    const tall = { s: { r: 1, c: 0 }, e: { r: 1 + MAX_MERGE_ROWS, c: 0 } };
    const warnings: string[] = [];
    fillMergesDown(
      data,
      Array.from({ length: 200_000 }, () => tall),
      1,
      warnings,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^200,000 merged ranges of over 10,000 rows were not copied into their rows \(from row 2, 10,001 rows; from row 2, 10,001 rows; from row 2, 10,001 rows; and 199,997 more\); only each/,
    );
    expect(warnings[0]?.length).toBeLessThan(400);
  });
});

/** The workbook's zip with the XML of `path` rewritten by `edit` (what other writers put in a sheet). */
function rewritten(bytes: Buffer, path: string, edit: (xml: string) => string): Buffer {
  const zip = XLSX.CFB.read(bytes, { type: 'buffer' });
  const entry = XLSX.CFB.find(zip, path);
  if (!entry?.content) throw new Error(`no ${path}`);
  entry.content = Buffer.from(edit(Buffer.from(entry.content).toString('utf8')), 'utf8');
  entry.size = entry.content.length;
  return XLSX.CFB.write(zip, { type: 'buffer', fileType: 'zip' }) as Buffer;
}

describe('takeHiddenRows: rows hidden by a filter or by hand, read from the sheet XML without cellStyles', () => {
  const written = (hidden: Record<string, number[]>): Buffer => {
    const book = XLSX.utils.book_new();
    for (const [name, rows] of Object.entries(hidden)) {
      // Row 6's text holds what a row tag looks like: it is text, not a tag.
      const sheet = XLSX.utils.aoa_to_sheet(
        Array.from({ length: 6 }, (_, i) => [
          i === 5 ? 'see <row r="6" hidden="1"> x:row' : `${name}-${i + 1}`,
        ]),
      );
      sheet['!rows'] = Array.from({ length: 6 }, (_, i) => (rows.includes(i + 1) ? { hidden: true } : {}));
      XLSX.utils.book_append_sheet(book, sheet, name);
    }
    return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
  };
  const read = (bytes: Buffer): XLSX.WorkBook =>
    XLSX.read(bytes, { type: 'buffer', dense: true, bookFiles: true });

  it('names the hidden rows of the sheet asked for, not of another sheet', () => {
    const bytes = written({ First: [2], 'Orders & more': [3, 5] });
    const workbook = read(bytes);
    expect([...takeHiddenRows(workbook, 'Orders & more')]).toEqual([3, 5]);
    // The kept package is let go of once read.
    expect(workbook).not.toHaveProperty('files');
    expect([...takeHiddenRows(read(bytes), 'First')]).toEqual([2]);
    expect([...takeHiddenRows(read(bytes), 'Nope')]).toEqual([]);
  });

  it('reads prefixed tags, hidden="true", a <row> without r, and passes over <rowBreaks> and cell text', () => {
    const bytes = rewritten(written({ Orders: [] }), '/xl/worksheets/sheet1.xml', (xml) =>
      xml
        .replace('<row r="2">', '<row hidden="true">')
        .replace('<row r="4">', "<x:row r='4' hidden='1' spans=\"1:1\">")
        .replace(/<\/row>(?=<row r="5">)/, '</x:row>')
        .replace('</sheetData>', '</sheetData><rowBreaks count="1"><brk id="3" hidden="1"/></rowBreaks>'),
    );
    expect([...takeHiddenRows(read(bytes), 'Orders')]).toEqual([2, 4]);
  });

  it('finds nothing in a workbook read without bookFiles', () => {
    const workbook = XLSX.read(written({ Orders: [2] }), { type: 'buffer', dense: true });
    expect([...takeHiddenRows(workbook, 'Orders')]).toEqual([]);
  });

  it('the warning is bounded: how many, the first five', () => {
    const seen = new HiddenRowsSeen();
    for (let row = 2; row < 2002; row++) seen.add(row);
    expect(seen.first).toEqual([2, 3, 4, 5, 6]);
    expect(hiddenRowsWarning(seen, 'Orders', 'imported')).toMatch(
      /^2,000 rows of sheet 'Orders' are hidden \(rows 2, 3, 4, 5, 6 and 1,995 more\), by a filter or by hand; they were imported .* import again$/,
    );
    const one = new HiddenRowsSeen();
    one.add(7);
    expect(hiddenRowsWarning(one, 'Orders', 'pushed')).toMatch(
      /^1 row of sheet 'Orders' is hidden \(row 7\), .*pushed/,
    );
  });
});

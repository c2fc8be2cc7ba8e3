import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProductSheet } from '../../../connectors/plm-import/profiles/parse-sheet';
import type { MappingProfile } from '../../../connectors/plm-import/profiles/schema';
import { openSheet } from '../../../connectors/plm-import/read/open-sheet';
import { validateDrafts } from '../../../connectors/plm-import/validate';
import { largeCsv } from '../../bad-input/corpus';
import { badInput, collect, flat, native, profile, references, tempDir } from './helpers';

/** Each file of test/fixtures/bad-input (spreadsheet cases) and what an operator gets from it. */

const parse = (file: string, use: MappingProfile = native()) =>
  parseProductSheet(join(badInput, file), { profile: use, references });

const datesProfile = profile({
  name: 'dates',
  layout: 'native',
  parentExternalId: { constant: '' },
  mapping: {
    externalId: 'externalId',
    fields: { name: 'name', styleTypeId: 'styleType', isComponent: { constant: false } },
    autoCodeColumns: true,
    customProperties: { launchDate: { source: 'launchDate', type: 'date' } },
  },
});

describe('bad-input corpus: whole-file errors', () => {
  it.each([
    ['empty.csv', 'empty_file', /is empty \(0 bytes\)/],
    ['blank-lines.csv', 'empty_file', /has no rows/],
    ['header-only.csv', 'no_data_rows', /header row \(row 1\) but no data rows/],
    ['header-only.xlsx', 'no_data_rows', /header row \(row 1\) but no data rows/],
    ['duplicate-headers.csv', 'duplicate_headers', /'name' \(columns B, C\)/],
    ['duplicate-headers.xlsx', 'duplicate_headers', /'color' \(columns B, D\)/],
    ['binary-named.xlsx', 'not_a_spreadsheet', /named \.xlsx but is not an Excel workbook/],
    ['zip-not-xlsx.xlsx', 'not_a_spreadsheet', /zip archive but not an Excel workbook/],
    [
      'unknown-delimiter.csv',
      'missing_columns',
      /a single column 'externalId:name:styleType:PLM_ID' \(is the delimiter one of , ; tab \|\?\)/,
    ],
  ])('%s -> %s', async (file, code, message) => {
    await expect(parse(file)).rejects.toMatchObject({
      name: 'PlmFileError',
      code,
      message: expect.stringMatching(message),
    });
  });

  it('zip-bomb.xlsx is refused from its zip directory before anything is expanded', async () => {
    const before = process.memoryUsage().rss;
    const started = Date.now();
    await expect(parse('zip-bomb.xlsx')).rejects.toMatchObject({
      code: 'expanded_too_large',
      message: expect.stringMatching(/expands to 3\d{8} bytes.*zip bomb/),
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('windows-1252.csv is refused when the caller asks for UTF-8 only', async () => {
    await expect(
      parseProductSheet(join(badInput, 'windows-1252.csv'), {
        profile: native(),
        references,
        read: { nonUtf8: 'reject' },
      }),
    ).rejects.toMatchObject({
      code: 'bad_encoding',
      message: expect.stringMatching(/not valid UTF-8 \(first bad byte on line 2 .*Save it as "CSV UTF-8"/),
    });
  });
});

describe('bad-input corpus: files that read, with warnings or per-row errors', () => {
  it('windows-1252.csv is decoded as windows-1252 with a warning naming the line', async () => {
    const parsed = await parse('windows-1252.csv');
    expect(parsed.sheet.encoding).toBe('windows-1252');
    expect(parsed.warnings[0]).toMatch(/not valid UTF-8 \(first bad byte on line 2/);
    expect(parsed.drafts[0]?.fields).toMatchObject({ name: 'Café Crème Tee', description: 'Größe ½' });
  });

  it('utf8-bom.csv: the byte-order mark does not end up in the first header', async () => {
    const parsed = await parse('utf8-bom.csv');
    expect(parsed.sheet.headers[0]).toBe('externalId');
    expect(validateDrafts(parsed).valid.map((draft) => [draft.externalId, draft.fields.name])).toEqual([
      ['B-1', 'Café Tee'],
    ]);
  });

  it('semicolon-decimal-comma.csv: the delimiter is detected and 1.250,5 is read as 1250.5', async () => {
    const parsed = await parse('semicolon-decimal-comma.csv');
    expect(parsed.sheet.delimiter).toBe(';');
    const result = validateDrafts(parsed);
    expect(result.issues).toEqual([]);
    expect(result.valid[0]?.fields.weight).toEqual({ unit: 'GRAM', value: 1250.5 });
  });

  it('quoted-newlines.csv: a quoted field keeps its line break and the next record keeps its row number', async () => {
    const rows = await collect((await openSheet(join(badInput, 'quoted-newlines.csv'))).rows());
    expect(rows.map((row) => [row.rowNumber, row.cells.description])).toEqual([
      [2, 'line one\nline two, with comma'],
      [3, 'plain'],
    ]);
  });

  it('thousands-separators.csv: grouped numbers are read, a malformed one is a bad_number row error', async () => {
    const result = validateDrafts(await parse('thousands-separators.csv'));
    expect(result.valid.map((draft) => draft.fields.weight?.value)).toEqual([1250.5, 1250, 12.5]);
    expect(result.issues).toEqual([
      expect.objectContaining({ rowNumber: 5, column: 'weight', code: 'bad_number' }),
    ]);
    expect(result.issues[0]?.message).toBe(
      "row 5, column 'weight': '1,2,3' is not a weight (a number such as 250 or 1,250.5)",
    );
  });

  it('formulas-and-errors.xlsx: cached formula results are used, error results are cell_error row errors', async () => {
    const result = validateDrafts(await parse('formulas-and-errors.xlsx'));
    expect(result.valid.find((draft) => draft.externalId === 'F-1')?.fields.name).toBe('Tee (from formula)');
    expect(result.issues.map((issue) => issue.message)).toEqual([
      "row 3, column 'name': the cell holds the error #N/A (fix the formula or type the value)",
      "row 3, column 'styleType': the cell holds the error #REF! (fix the formula or type the value)",
    ]);
  });

  it('merged-cells.xlsx: a merged style cell applies to every SKU row it spans', async () => {
    const result = validateDrafts(await parse('merged-cells.xlsx', flat()));
    expect(result.issues).toEqual([]);
    expect(result.valid.filter((draft) => draft.level === 'sku').map((draft) => draft.fields.name)).toEqual([
      'Classic Tee Black M',
      'Classic Tee Black L',
      'Classic Tee White M',
    ]);
  });

  it('dates-as-text.csv: ISO and day-first dates are normalised, words are a bad_date row error', async () => {
    const result = validateDrafts(await parse('dates-as-text.csv', datesProfile));
    expect(result.valid.map((draft) => JSON.parse(draft.fields.customProperties ?? '{}'))).toEqual([
      { launchDate: '2025-03-15' },
      { launchDate: '2025-03-15' },
      { launchDate: '2025-03-15' },
    ]);
    expect(result.issues).toEqual([
      expect.objectContaining({ rowNumber: 5, column: 'launchDate', code: 'bad_date' }),
    ]);
  });

  it('dates-serial.xlsx: a date-formatted cell and a bare serial number both become the same date', async () => {
    const result = validateDrafts(await parse('dates-serial.xlsx', datesProfile));
    expect(result.issues).toEqual([]);
    expect(result.valid.map((draft) => draft.fields.customProperties)).toEqual([
      '{"launchDate":"2025-03-15"}',
      '{"launchDate":"2025-03-15"}',
    ]);
  });

  it('bad-code-type.csv: a bare OTHER_ID column is an invalid_code_type row error', async () => {
    const result = validateDrafts(await parse('bad-code-type.csv'));
    expect(result.issues).toEqual([
      expect.objectContaining({ rowNumber: 2, column: 'OTHER_ID', code: 'invalid_code_type' }),
    ]);
  });
});

describe('bad-input corpus: a 50 MB file (generated here, not committed)', () => {
  const dir = tempDir();
  afterAll(dir.cleanup);
  const size = 50 * 1024 * 1024;

  it('a 50 MB csv streams row by row without holding the file in memory', async () => {
    const path = join(dir.path, 'big.csv');
    const filler = 'x'.repeat(400);
    const rows = largeCsv(
      path,
      'externalId,name,styleType,isComponent,PLM_ID,description',
      size,
      (i) => `BIG-${i},Tee ${i},T-Shirt,no,BIG-${i},${filler}`,
    );
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    let count = 0;
    let lastId: unknown = null;
    for await (const sheetRow of (await openSheet(path)).rows()) {
      count++;
      lastId = sheetRow.cells.externalId;
      if (count % 20000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    expect(count).toBe(rows);
    expect(lastId).toBe(`BIG-${rows - 1}`);
    expect(peak - before).toBeLessThan(200 * 1024 * 1024);
  }, 60_000);

  it('a 50 MB file over the size limit is refused at once', async () => {
    const path = join(dir.path, 'big.xlsx');
    writeFileSync(path, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(size)]));
    await expect(openSheet(path)).rejects.toMatchObject({
      code: 'file_too_large',
      message: expect.stringMatching(/over the limit of 52,428,800 bytes for xlsx/),
    });
    await expect(
      openSheet(join(dir.path, 'big.csv'), { maxFileBytes: 10 * 1024 * 1024 }),
    ).rejects.toMatchObject({ code: 'file_too_large' });
  });
});

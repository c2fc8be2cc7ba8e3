import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { CatalogueIndex, parseExistingProducts } from '../../../connectors/plm-import/catalogue';
import { planImport } from '../../../connectors/plm-import/plan';
import { parseProductSheet } from '../../../connectors/plm-import/profiles/parse-sheet';
import type { MappingProfile } from '../../../connectors/plm-import/profiles/schema';
import { openSheet } from '../../../connectors/plm-import/read/open-sheet';
import { writeRejects } from '../../../connectors/plm-import/rejects';
import { validateDrafts } from '../../../connectors/plm-import/validate';
import {
  badInput,
  classicTeeBlackInCatalogue,
  collect,
  fixtures,
  flat,
  native,
  references,
  tempDir,
} from './helpers';

async function check(path: string, profile: MappingProfile) {
  const parsed = await parseProductSheet(path, { profile, references });
  return validateDrafts(parsed);
}

describe('writeRejects', () => {
  const dir = tempDir();
  afterAll(dir.cleanup);

  it('writes the bad rows of a csv as csv, with the original columns plus error_code and error_message', async () => {
    const source = join(dir.path, 'bad-rows.csv');
    copyFileSync(join(badInput, 'bad-rows.csv'), source);
    const result = await check(source, native());
    const written = await writeRejects({ sourcePath: source, issues: result.issues, profile: native() });
    expect(written).toEqual({ path: join(dir.path, 'bad-rows.rejects.csv'), format: 'csv', rows: 14 });
    const text = readFileSync(written.path, 'utf8');
    expect(text.startsWith('\uFEFFexternalId,parentExternalId,level,name')).toBe(true);
    expect(text.split('\r\n')[0]).toMatch(/,OTHER_ID1,error_code,error_message$/);
    const rows = await collect((await openSheet(written.path)).rows());
    expect(rows.map((row) => row.cells.externalId)).not.toContain('OK-1');
    const brand = readFileSync(written.path, 'utf8')
      .split('\r\n')
      .find((line) => line.startsWith('BRAND,'));
    expect(brand).toContain(
      "unknown_reference,\"row 5, column 'brands': unknown brand 'Nortwind'; did you mean 'Northwind' or 'Southwind'?\"",
    );
  });

  it('keeps the delimiter of the source and can be fixed and fed back: the extra columns are ignored', async () => {
    const source = join(dir.path, 'semi.csv');
    const header = 'externalId;name;styleType;isComponent;PLM_ID;weight;weightUnit';
    const lines = [
      header,
      'A;Good;Jeans;no;A;1.250,5;GRAM',
      'B;Broken;Jeens;no;B;;',
      'C;Also good;Jeans;no;C;;',
    ];
    writeFileSync(source, lines.join('\n') + '\n');
    const first = await check(source, native());
    expect(first.valid.map((draft) => draft.externalId)).toEqual(['A', 'C']);
    const rejects = await writeRejects({ sourcePath: source, issues: first.issues, profile: native() });
    const text = readFileSync(rejects.path, 'utf8');
    expect(text).toContain(
      'externalId;name;styleType;isComponent;PLM_ID;weight;weightUnit;error_code;error_message',
    );
    expect(text).toContain(
      "B;Broken;Jeens;no;B;;;unknown_reference;\"row 3, column 'styleType': unknown style type 'Jeens'; did you mean 'Jeans'?\"",
    );
    writeFileSync(rejects.path, text.replace('Jeens', 'Jeans'));
    const second = await check(rejects.path, native());
    expect(second.issues).toEqual([]);
    expect(second.valid.map((draft) => [draft.externalId, draft.fields.styleTypeId])).toEqual([
      ['B', 'st_jeans'],
    ]);
  });

  // As the ERP push's rejects: "Written as the input was", so the fixed file reads back the same way.
  it("keeps Excel's `sep=;` first line, without a byte-order mark the source did not have, and reads back", async () => {
    const source = join(dir.path, 'sep-line.csv');
    writeFileSync(
      source,
      Buffer.from(
        'sep=;\r\nexternalId;name;styleType;isComponent;PLM_ID\r\nA;Café;Jeans;no;A\r\nB;Crème;Jeens;no;B\r\n',
        'latin1',
      ),
    );
    const first = await check(source, native());
    const rejects = await writeRejects({ sourcePath: source, issues: first.issues, profile: native() });
    const text = readFileSync(rejects.path).toString('latin1');
    expect(text.split('\r\n').slice(0, 2)).toEqual([
      'sep=;',
      'externalId;name;styleType;isComponent;PLM_ID;error_code;error_message',
    ]);
    expect(text).toContain('B;Crème;Jeens;no;B;unknown_reference;');
    expect((await openSheet(rejects.path)).delimiter).toBe(';');
    writeFileSync(rejects.path, Buffer.from(text.replace('Jeens', 'Jeans'), 'latin1'));
    const second = await check(rejects.path, native());
    expect(second.valid.map((draft) => [draft.externalId, draft.fields.name])).toEqual([['B', 'Crème']]);
  });

  it('writes xlsx rejects for an xlsx source and completes flat continuation rows so they stand alone', async () => {
    const source = join(dir.path, 'flat-bad.xlsx');
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([
        ['Style Number', 'Style Name', 'Style Type', 'Colour Code', 'Colour', 'Size', 'SKU', 'EAN'],
        ['1001', 'Classic Tee', 'T-Shirt', 'BLK', 'Black', 'M', '1001-BLK-M', '4006381334001'],
        [null, null, null, 'BLK', 'Black', 'L', '1001-BLK-L', '4006381334099'],
        [null, null, null, 'BLK', 'Black', 'XL', '1001-BLK-XL', '4006381334099'],
      ]),
      'PLM',
    );
    XLSX.writeFile(book, source);
    const result = await check(source, flat());
    expect(result.valid.map((draft) => draft.externalId)).toEqual(['1001', '1001-BLK', '1001-BLK-M']);
    const rejects = await writeRejects({ sourcePath: source, issues: result.issues, profile: flat() });
    expect(rejects).toMatchObject({ format: 'xlsx', rows: 2 });
    const written = XLSX.readFile(rejects.path);
    expect(written.SheetNames).toEqual(['PLM']);
    const rows = XLSX.utils.sheet_to_json<Record<string, string>>(written.Sheets.PLM as XLSX.WorkSheet);
    expect(rows.map((row) => [row['Style Number'], row['Style Name'], row.SKU, row.error_code])).toEqual([
      ['1001', 'Classic Tee', '1001-BLK-L', 'duplicate_code_value'],
      ['1001', 'Classic Tee', '1001-BLK-XL', 'duplicate_code_value'],
    ]);
    // Fixed and fed back on its own, against a catalogue that holds the style and variant: only the SKUs are written.
    const fixedBook = XLSX.readFile(rejects.path);
    const sheet = fixedBook.Sheets.PLM as XLSX.WorkSheet;
    sheet.H2 = { t: 's', v: '4006381334002' };
    sheet.H3 = { t: 's', v: '4006381334003' };
    XLSX.writeFile(fixedBook, rejects.path);
    const fixed = await parseProductSheet(rejects.path, { profile: flat(), references });
    const existing = classicTeeBlackInCatalogue();
    const catalogue = parseExistingProducts(existing);
    const plan = planImport(
      validateDrafts(fixed, { existing: new CatalogueIndex(catalogue).levels() }),
      catalogue,
    );
    expect(plan.writes.map((step) => `${step.action} ${step.externalId}`)).toEqual([
      'create 1001-BLK-L',
      'create 1001-BLK-XL',
    ]);
    expect(plan.counts.unchanged).toBe(2);
  });

  it('writes an xls rejects file for an xls source', async () => {
    const source = join(dir.path, 'flat.xls');
    copyFileSync(join(fixtures, 'flat.xls'), source);
    const rejects = await writeRejects({
      sourcePath: source,
      issues: [{ rowNumber: 3, column: 'EAN', code: 'duplicate_code_value', message: 'row 3: test' }],
      profile: flat(),
    });
    expect(rejects).toMatchObject({ format: 'xls', rows: 1, path: join(dir.path, 'flat.rejects.xls') });
    const rows = await collect((await openSheet(rejects.path)).rows());
    expect(rows.map((row) => [row.cells.SKU, row.cells['Style Name']])).toEqual([
      ['1001-BLK-L', 'Classic Tee'],
    ]);
  });
});

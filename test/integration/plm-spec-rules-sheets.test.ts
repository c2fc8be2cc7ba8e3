/**
 * Issue 15: the PLM import follows the spec's catalogue and material rules and reads real product exports. Every
 * test runs the real workflow on a Temporal dev server against the sandbox over HTTP; the spec sentence each one
 * holds the import to is quoted in its name or beside it.
 * This file: real exports, mappings, sheets and dry runs; the shared setup is plm-rules-stack.ts.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { retryPlanFor } from '../../cli/commands/retry';
import { builtinProfile } from '../../connectors/plm-import/profiles/builtin';
import { plmImport } from '../../workflows';
import { plmImportInputSchema, type PlmImportInput } from '../../workflows/plm-import';
import { repoRoot } from '../../worker/paths';
import { withStaleDimension } from '../unit/stale-dimension';
import { family, HEADER, plmRulesStack, toCsv, type Row } from './plm-rules-stack';

describe('PLM import follows the spec rules (issue 15)', () => {
  const { stack, file, run, snapshot, writesSince, api, product, rejectsOf } = plmRulesStack();

  describe('4, 5, 7: a Shopify product export with the shipped example mapping', () => {
    const example = (name: string) => path.join(repoRoot(), 'examples', 'plm', name);

    it('image-only rows are skipped and counted, Type is translated, blank Variant SKU falls back to a template; 0 rejects and a re-import writes 0', async () => {
      const result = await run({
        file: example('shopify-products.csv'),
        mappingFile: example('shopify-products.mapping.json'),
      });
      expect(result.rejectedRows).toBe(0);
      expect(result.skippedRows).toBe(3);
      expect(result.plan).toMatchObject({ skipped: 3 });
      expect(result.products).toMatchObject({ created: 3 + 4 + 8, rejected: 0 });
      expect(result.compositions).toMatchObject({ written: 3, rejected: 0 });
      expect(await product('storm-shell-parka')).toMatchObject({
        name: 'Storm Shell Parka',
        description: 'Waterproof parka with taped seams',
      });
      expect(await product('storm-shell-parka')).toMatchObject({ styleTypeId: 'st_jackets' }); // Type Outerwear -> Jackets
      expect(await product('linen-beach-shirt')).toMatchObject({ styleTypeId: 'st_tshirts' }); // Shirt -> the default
      expect((await product('nordic-crew-tee')).description).toContain('<li>Regular fit</li>'); // the multi-line HTML body
      expect(await product('NT-TEE-SND-M')).toMatchObject({ name: 'Nordic Crew Tee Sand M' });
      expect(await product('nordic-crew-tee-Sand-L')).toMatchObject({ name: 'Nordic Crew Tee Sand L' }); // blank Variant SKU

      const before = snapshot();
      const again = await run({
        file: example('shopify-products.csv'),
        mappingFile: example('shopify-products.mapping.json'),
      });
      expect(writesSince(before)).toBe(0);
      expect(again.products).toMatchObject({ unchanged: 15, created: 0, updated: 0, rejected: 0 });
    });

    it('a blank template key names the blank column inside the template; "did you mean" offers only close names, else the valid ones', async () => {
      const text = readFileSync(example('shopify-products.csv'), 'utf8')
        .replace('nordic-crew-tee,,,,,,,,,Black,,L,', 'nordic-crew-tee,,,,,,,,,Black,,,') // a variant row without its size
        .replace(',Shirt,"linen, summer"', ',Earrings,"linen, summer"');
      const mapping = JSON.parse(readFileSync(example('shopify-products.mapping.json'), 'utf8')) as {
        style: { fields: { styleTypeId: unknown } };
        sku: { externalId: { fallback: { template: string } } };
      };
      mapping.style.fields.styleTypeId = 'Type'; // no translation table: the names must be valid style types
      // Without the shipped mapping's {Size|One size} a blank size leaves the template key blank.
      mapping.sku.externalId.fallback.template = '{Handle}-{Option1 Value}-{Option2 Value}';
      const result = await run({
        file: await file('shopify-broken.csv', text),
        mappingFile: await file('shopify-plain.json', JSON.stringify(mapping)),
      });
      const rejects = rejectsOf(result);
      expect(rejects.find((reject) => reject.code.includes('missing_required'))?.message).toMatch(
        /row 5, column 'Option2 Value': the sku key is blank/,
      );
      const earrings = rejects.find(
        (reject) => reject.externalId === 'linen-beach-shirt' && reject.code === 'unknown_reference',
      );
      expect(earrings?.message).toMatch(/unknown style type 'Earrings'; valid names: .*'Jackets'/);
      expect(earrings?.message).not.toContain('did you mean');
      expect(
        rejects.find(
          (reject) => reject.externalId === 'storm-shell-parka' && reject.code === 'unknown_reference',
        )?.message,
      ).toMatch(/unknown style type 'Outerwear'/);
    });
  });

  describe('6. the mapping format is a contract', () => {
    it('a mapping that names a column the sheet lacks fails before any row is read, naming the column and the closest header', async () => {
      const mapping = JSON.parse(
        readFileSync(path.join(repoRoot(), 'examples', 'plm', 'flat-sku-export.mapping.json'), 'utf8'),
      ) as { variant: { fields: Record<string, unknown> } };
      mapping.variant.fields['color'] = 'Colour Name';
      const before = snapshot();
      await expect(
        run({
          file: path.join(repoRoot(), 'examples', 'plm', 'flat-sku-export.csv'),
          mappingFile: await file('flat-typo.json', JSON.stringify(mapping)),
        }),
      ).rejects.toMatchObject({
        cause: {
          message: expect.stringMatching(
            /names column\(s\) the sheet lacks: 'Colour Name' \(closest header: 'Colour'\)/,
          ),
        },
      });
      expect(writesSince(before)).toBe(0);
    });

    it('the shipped flat one-row-per-SKU example imports with 0 rejects and its compositions', async () => {
      const result = await run({
        file: path.join(repoRoot(), 'examples', 'plm', 'flat-sku-export.csv'),
        mappingFile: path.join(repoRoot(), 'examples', 'plm', 'flat-sku-export.mapping.json'),
      });
      expect(result).toMatchObject({
        rejectedRows: 0,
        products: { created: 2 + 3 + 5, rejected: 0 },
        compositions: { written: 2 },
      });
    });
  });

  describe('8. several sheets', () => {
    const workbook = (): Buffer => {
      const book = XLSX.utils.book_new();
      const sheetOf = (rows: Row[]) =>
        XLSX.utils.aoa_to_sheet([
          [...HEADER],
          ...rows.map((row) => HEADER.map((column) => row[column] ?? '')),
        ]);
      XLSX.utils.book_append_sheet(book, sheetOf(family('SHEETA')), 'Current');
      XLSX.utils.book_append_sheet(
        book,
        sheetOf([
          ...family('SHEETB'),
          {
            externalId: 'SHEETB-NOTYPE',
            level: 'style',
            name: 'No type',
            isComponent: 'no',
            PLM_ID: 'SHEETB-NOTYPE',
          },
        ]),
        'Next season',
      );
      XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['Notes'], ['do not import']]), 'Notes');
      return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    };

    it('without a sheet name the first sheet is read and the result names the ignored ones; `sheet` picks another', async () => {
      const sheet = await file('seasons.xlsx', workbook());
      const first = await run({ file: sheet, profile: 'native' });
      expect(first).toMatchObject({
        sheetName: 'Current',
        ignoredSheets: ['Next season', 'Notes'],
        products: { created: 3 },
      });
      const picked = await run({ file: sheet, profile: 'native', sheet: 'Next season' });
      expect(picked).toMatchObject({
        sheetName: 'Next season',
        ignoredSheets: ['Current', 'Notes'],
        products: { created: 3, rejected: 1 },
      });
      expect(await product('SHEETB-BLK-M')).toMatchObject({ externalId: 'SHEETB-BLK-M' });
      // The rejects file holds rows of the sheet that was read.
      const rejects = XLSX.read(readFileSync(picked.rejectsFile as string));
      expect(rejects.SheetNames).toEqual(['Next season']);
      const rejected = XLSX.utils.sheet_to_json<Record<string, string>>(
        rejects.Sheets['Next season'] as XLSX.WorkSheet,
      );
      expect(rejected.map((row) => `${row['externalId']} ${row['error_code']}`)).toEqual([
        'SHEETB-NOTYPE missing_required',
      ]);
    });
  });

  describe('sheets Excel users see', () => {
    const bookOf = (sheets: ReadonlyArray<{ name: string; rows: Row[]; hidden?: 1 }>): Buffer => {
      const book = XLSX.utils.book_new();
      for (const sheet of sheets) {
        XLSX.utils.book_append_sheet(
          book,
          XLSX.utils.aoa_to_sheet([
            [...HEADER],
            ...sheet.rows.map((row) => HEADER.map((column) => row[column] ?? '')),
          ]),
          sheet.name,
        );
      }
      book.Workbook = { Sheets: sheets.map((sheet) => ({ name: sheet.name, Hidden: sheet.hidden ?? 0 })) };
      return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    };

    // A template keeps its archived copy in a hidden first sheet; Excel users never see it.
    it('a hidden first sheet is not read: the first visible sheet is, a warning names the hidden one; a sheet named explicitly is read even if hidden', async () => {
      const sheet = await file(
        'hidden-first.xlsx',
        bookOf([
          { name: 'Archive 2023', rows: family('HID1', { style: { name: 'OLD NAME (2023)' } }), hidden: 1 },
          { name: 'Products', rows: family('HID1', { style: { name: 'Current name' } }) },
        ]),
      );
      const result = await run({ file: sheet, profile: 'native' });
      expect(result).toMatchObject({ sheetName: 'Products', products: { created: 3, rejected: 0 } });
      expect(result.warnings).toEqual(
        expect.arrayContaining([expect.stringMatching(/hidden sheet\(s\) 'Archive 2023'.* not read/)]),
      );
      expect(await product('HID1')).toMatchObject({ name: 'Current name' });
      const picked = await run({ file: sheet, profile: 'native', sheet: 'Archive 2023', dryRun: true });
      expect(picked).toMatchObject({ sheetName: 'Archive 2023' });
      expect(picked.warnings.join('\n')).not.toMatch(/hidden/);
    });

    // A user who filtered out a discontinued style and saved the workbook may not know its rows are still in the
    // file; the import reads the file, so they are imported, and the warning says how many and which.
    it('rows hidden in the sheet (a filter) are imported, and a warning names how many and the first of them', async () => {
      const rows = [...family('HROW1'), ...family('HROW2')];
      const sheet = XLSX.utils.aoa_to_sheet([
        [...HEADER],
        ...rows.map((row) => HEADER.map((column) => row[column] ?? '')),
      ]);
      // Rows 3 and 7 (1-based, header = 1): HROW1's variant and HROW2's sku.
      sheet['!rows'] = Array.from({ length: 7 }, (_, r) => (r === 2 || r === 6 ? { hidden: true } : {}));
      sheet['!autofilter'] = { ref: `A1:${XLSX.utils.encode_col(HEADER.length - 1)}7` };
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Products');
      const result = await run({
        file: await file(
          'hidden-rows.xlsx',
          XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer,
        ),
        profile: 'native',
      });
      expect(result).toMatchObject({ products: { created: 6, rejected: 0 } });
      expect(await product('HROW2-BLK-M')).toMatchObject({ name: 'HROW2 black M' });
      expect(result.warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^2 rows of sheet 'Products' are hidden \(rows 3, 7\), by a filter or by hand; they were imported/,
          ),
        ]),
      );
    });
  });

  // DESIGN.md: "When an import has bad rows, the operator gets a rejects file (the original row, the error code, a
  // readable message), fixes it, and re-runs only those rows." The file they fix is the one they gave, so it keeps
  // that file's encoding and delimiter (as the ERP push's rejects do), and `retry` reads it back as it read the input.
  describe('the rejects file of a csv keeps its encoding and delimiter', () => {
    const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
    const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
    const delimited = (rows: readonly Row[], delimiter: string): string =>
      [
        HEADER.join(delimiter),
        ...rows.map((row) => HEADER.map((column) => row[column] ?? '').join(delimiter)),
      ]
        .map((line) => `${line}\r\n`)
        .join('');
    /** Runs the import, then (after `fix`) `trace-sync retry` of its rejects file, as an operator would. */
    const runThenRetry = async (input: PlmImportInput, fix: (rejects: Buffer) => Buffer) => {
      const { client, taskQueue, workflowId } = stack();
      const start = (args: PlmImportInput) =>
        client.workflow.start(plmImport, { args: [args], taskQueue, workflowId: workflowId('plm-encoding') });
      const first = await start(input);
      const result = await first.result();
      const rejects = readFileSync(result.rejectsFile as string);
      await writeFile(result.rejectsFile as string, fix(rejects));
      const plan = await retryPlanFor(client, first.workflowId);
      const retried = await (await start(plmImportInputSchema.parse(plan.input))).result();
      return { result, rejects, retried, retryOf: first.workflowId };
    };
    const rejectedHeader = (delimiter: string) => [...HEADER, 'error_code', 'error_message'].join(delimiter);

    it('a Windows-1252 `;`-delimited csv with a bad row gets its rejects file in Windows-1252 with `;`, and `retry` of the fixed file reads it back', async () => {
      const rows = family('ENC1252', {
        style: { name: 'Café tee' },
        sku: { name: 'Crème M', weightUnit: 'STONES' },
      });
      const sheet = await file('enc-1252.csv', Buffer.from(delimited(rows, ';'), 'latin1'));
      const { result, rejects, retried, retryOf } = await runThenRetry(
        { file: sheet, profile: 'native' },
        (bytes) => Buffer.from(bytes.toString('latin1').replace(';STONES;', ';GRAM;'), 'latin1'),
      );
      expect(result.products).toMatchObject({ created: 2, rejected: 1 });
      expect(rejects.subarray(0, 3).equals(UTF8_BOM)).toBe(false);
      expect(rejects.includes(Buffer.from('Crème M', 'latin1'))).toBe(true); // è is 0xE8 in Windows-1252
      expect(rejects.includes(Buffer.from('Crème M', 'utf8'))).toBe(false);
      const lines = rejects.toString('latin1').split('\r\n');
      expect(lines[0]).toBe(rejectedHeader(';'));
      expect(lines[1]).toMatch(/^ENC1252-BLK-M;ENC1252-BLK;sku;Crème M;.*;STONES;.*;bad_unit;/);
      expect(retried).toMatchObject({ retryOf, rejectsFile: null, products: { created: 1, rejected: 0 } });
      expect(await product('ENC1252-BLK-M')).toMatchObject({ name: 'Crème M' });
    });

    it('a UTF-16LE tab-delimited csv (Excel "Unicode Text") with a bad row gets its rejects file in UTF-16LE with tabs, and `retry` of the fixed file reads it back', async () => {
      const name = 'Ærø 東京 M'; // not all of it fits Windows-1252
      const rows = family('ENC16', { sku: { name, weightUnit: 'STONES' } });
      const sheet = await file(
        'enc-utf16.csv',
        Buffer.concat([UTF16LE_BOM, Buffer.from(delimited(rows, '\t'), 'utf16le')]),
      );
      const { result, rejects, retried, retryOf } = await runThenRetry(
        { file: sheet, profile: 'native' },
        (bytes) =>
          Buffer.concat([
            UTF16LE_BOM,
            Buffer.from(bytes.subarray(2).toString('utf16le').replace('\tSTONES\t', '\tGRAM\t'), 'utf16le'),
          ]),
      );
      expect(result.products).toMatchObject({ created: 2, rejected: 1 });
      expect(rejects.subarray(0, 2).equals(UTF16LE_BOM)).toBe(true);
      const lines = rejects.subarray(2).toString('utf16le').split('\r\n');
      expect(lines[0]).toBe(rejectedHeader('\t'));
      expect(lines[1]).toMatch(new RegExp(`^ENC16-BLK-M\tENC16-BLK\tsku\t${name}\t.*\tbad_unit\t`));
      expect(retried).toMatchObject({ retryOf, rejectsFile: null, products: { created: 1, rejected: 0 } });
      expect(await product('ENC16-BLK-M')).toMatchObject({ name });
    });
  });

  describe('a flat sheet that repeats a SKU', () => {
    // README: "rejects files get those carried cells back so a rejected row stands on its own"; a key on two rows
    // makes neither row's product importable, so both rows go to the rejects file, and fixing one of them and
    // running `retry` imports both products.
    it('both rows of a repeated SKU key land in the rejects file; after fixing the mistyped one, `retry` creates both SKUs', async () => {
      const csv =
        'Style Number,Style Name,Style Type,Colour Code,Colour,SKU,Size\r\n' +
        'DUPF,Dup tee,T-shirts,BLK,Black,DUPF-BLK-M,M\r\n' +
        'DUPF,Dup tee,T-shirts,BLK,Black,DUPF-BLK-L,L\r\n' +
        'DUPF,Dup tee,T-shirts,BLK,Black,DUPF-BLK-M,XL\r\n';
      const { client, taskQueue, workflowId } = stack();
      const start = (input: PlmImportInput) =>
        client.workflow.start(plmImport, { args: [input], taskQueue, workflowId: workflowId('plm-dup-sku') });
      const first = await start({ file: await file('flat-dup-sku.csv', csv), profile: 'flat' });
      const result = await first.result();
      expect(result.products).toMatchObject({ created: 3, rejected: 1 });
      expect(await product('DUPF-BLK-M')).toBeUndefined();
      const rejects = readFileSync(result.rejectsFile as string, 'utf8').replace(/^\uFEFF/, '');
      const lines = rejects.split('\r\n').filter((line) => line !== '');
      expect(lines.slice(1).map((line) => line.split(',').slice(5, 8).join(','))).toEqual([
        'DUPF-BLK-M,M,duplicate_external_id',
        'DUPF-BLK-M,XL,duplicate_external_id',
      ]);

      await writeFile(result.rejectsFile as string, rejects.replace('DUPF-BLK-M,XL,', 'DUPF-BLK-XL,XL,'));
      const plan = await retryPlanFor(client, first.workflowId);
      const retried = await (await start(plmImportInputSchema.parse(plan.input))).result();
      expect(retried).toMatchObject({ rejectsFile: null, products: { created: 2, rejected: 0 } });
      expect(await product('DUPF-BLK-M')).toMatchObject({ dimension: 'M' });
      expect(await product('DUPF-BLK-XL')).toMatchObject({ dimension: 'XL' });
    });
  });

  // Some non-Excel writers leave the xlsx <dimension> tag stale; SheetJS takes the sheet's range from it.
  it('a stale <dimension> (A1:N2 over 6 data rows) imports every row', async () => {
    const book = XLSX.utils.book_new();
    const rows = [...family('DIM1'), ...family('DIM2')];
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([[...HEADER], ...rows.map((row) => HEADER.map((column) => row[column] ?? ''))]),
      'Products',
    );
    const bytes = XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    const result = await run({
      file: await file('stale-dimension.xlsx', withStaleDimension(bytes, 'A1:N2')),
      profile: 'native',
    });
    expect(result).toMatchObject({ rows: 6, products: { created: 6, rejected: 0 } });
    expect(await product('DIM2-BLK-M')).toMatchObject({ externalId: 'DIM2-BLK-M' });
  });

  // A vertical merge is how PLM exports group a style's rows; a merge across columns is layout, not a value of each.
  it('a cell merged across Description and Gender gives its value to Description only; a vertical merge still fills its rows', async () => {
    const rows: Row[] = [
      ...family('MRG1', { style: { description: 'A long description of the tee', gender: '' } }),
      {
        externalId: 'MRG1-BLK-L',
        parentExternalId: 'MRG1-BLK',
        level: 'sku',
        name: 'MRG1 black L',
        dimension: 'L',
        PLM_ID: 'MRG1-BLK-L',
      },
    ];
    const sheet = XLSX.utils.aoa_to_sheet([
      [...HEADER],
      // Cells a merge covers are absent, as Excel saves them.
      ...rows.map((row) => HEADER.map((column) => row[column] || null)),
    ]);
    const at = (column: (typeof HEADER)[number]): number => HEADER.indexOf(column);
    sheet['!merges'] = [
      { s: { r: 1, c: at('description') }, e: { r: 1, c: at('gender') } },
      // The two SKU rows share one weight and unit, each merged down over both.
      { s: { r: 3, c: at('weight') }, e: { r: 4, c: at('weight') } },
      { s: { r: 3, c: at('weightUnit') }, e: { r: 4, c: at('weightUnit') } },
    ];
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Products');
    const result = await run({
      file: await file(
        'merged-across.xlsx',
        XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer,
      ),
      profile: 'native',
    });
    expect(result).toMatchObject({ products: { created: 4, rejected: 0 } });
    const style = await api<{ description: string | null; gender: string | null }>('/styles/MRG1');
    expect(style.description).toBe('A long description of the tee');
    expect(style.gender ?? null).toBeNull();
    expect((await api<{ weight: unknown }>('/styles/MRG1-BLK-L')).weight).toEqual({
      unit: 'GRAM',
      value: 180,
    });
  });

  describe('trace-sync retry', () => {
    /** Starts a run; `retryOf`: the run whose (fixed) rejects file `trace-sync retry` re-runs, as an operator would. */
    const start = async (input: PlmImportInput) => {
      const { client, taskQueue, workflowId } = stack();
      const handle = await client.workflow.start(plmImport, {
        args: [input],
        taskQueue,
        workflowId: workflowId('plm-retry'),
      });
      return { workflowId: handle.workflowId, result: await handle.result() };
    };
    const retry = async (workflowId: string) =>
      start(plmImportInputSchema.parse((await retryPlanFor(stack().client, workflowId)).input));
    /** A sheet in the built-in flat profile's columns. */
    const csv = (rows: string[][]) =>
      [
        [
          'Style Number',
          'Style Name',
          'Description',
          'Style Type',
          'Colour Code',
          'Colour',
          'SKU',
          'Size',
          'Weight (g)',
        ],
        ...rows,
      ]
        .map((row) => `${row.join(',')}\r\n`)
        .join('');

    // Spec 01, PUT: only the fields sent change; README: "Rejects files get those carried cells back" so a rejected
    // row stands on its own. Those carried cells are the style's and colour's as they were on the original run's day:
    // a retry writes what the original run rejected, not the cells of products it wrote then and others changed since.
    it('a fixed flat SKU row re-run after a newer import changed its style creates the SKU and leaves the style as the newer import wrote it', async () => {
      const monday = await file(
        'retry-monday.csv',
        csv([
          ['RTY1', 'Retry tee', 'Monday text', 'T-shirts', 'BLK', 'Black', 'RTY1-BLK-S', 'S', '180'],
          ['', '', '', '', '', '', 'RTY1-BLK-M', 'M', 'heavy'],
        ]),
      );
      const first = await start({ file: monday, profile: 'flat' });
      expect(first.result.products).toMatchObject({ created: 3, rejected: 1 });
      // Wednesday's full import edits the style.
      const wednesday = await file(
        'retry-wednesday.csv',
        csv([['RTY1', 'Retry tee', 'Wednesday text', 'T-shirts', 'BLK', 'Black', 'RTY1-BLK-S', 'S', '180']]),
      );
      expect((await start({ file: wednesday, profile: 'flat' })).result.products).toMatchObject({
        updated: 1,
      });

      const rejectsFile = first.result.rejectsFile as string;
      const rejected = readFileSync(rejectsFile, 'utf8');
      expect(rejected).toContain('RTY1,Retry tee,Monday text,T-shirts,BLK,Black,RTY1-BLK-M,M,heavy');
      await writeFile(rejectsFile, rejected.replace(',heavy,', ',200,'));
      const retried = await retry(first.workflowId);
      expect(retried.result).toMatchObject({
        rejectsFile: null,
        products: { created: 1, updated: 0, unchanged: 2, rejected: 0 },
      });
      expect(await product('RTY1-BLK-M')).toMatchObject({ dimension: 'M' });
      expect(await product('RTY1')).toMatchObject({ description: 'Wednesday text' });
    });

    // The products a retry writes are those its original run rejected, its children included: in the flat layout a
    // style's problem is told on each of its rows, under the style's key, and its colours and SKUs are rejected with
    // it (their changes not written). Fixed and retried, they must be written, not taken for products the run wrote.
    it('a fixed flat style re-run writes its colours and SKUs too, rejected with it the first time', async () => {
      const before = await file(
        'retry-tree-before.csv',
        csv([['RTY2', 'Retry tree', 'Tree text', 'T-shirts', 'BLK', 'Black', 'RTY2-BLK-S', 'S', '180']]),
      );
      expect((await start({ file: before, profile: 'flat' })).result.products).toMatchObject({ created: 3 });
      const monday = await file(
        'retry-tree-monday.csv',
        csv([['RTY2', 'Retry tree', 'Tree text', 'Tshirtz', 'BLK', 'Black', 'RTY2-BLK-S', 'S', '190']]),
      );
      const first = await start({ file: monday, profile: 'flat' });
      expect(first.result.products).toMatchObject({ updated: 0, rejected: 3 });
      const rejectsFile = first.result.rejectsFile as string;
      await writeFile(rejectsFile, readFileSync(rejectsFile, 'utf8').replace(',Tshirtz,', ',T-shirts,'));
      const retried = await retry(first.workflowId);
      expect(retried.result).toMatchObject({ rejectsFile: null, products: { updated: 1, rejected: 0 } });
      expect(await product('RTY2-BLK-S')).toMatchObject({ weight: { unit: 'GRAM', value: 190 } });
    });

    // A rejects workbook holds one sheet, named as the sheet the run read: with `--sheet`, not the mapping's `sheet`.
    it('a run of another sheet than the mapping names (`--sheet`) is retried on that sheet of its rejects workbook', async () => {
      const mapping = await file(
        'retry-sheet-mapping.json',
        JSON.stringify({ ...builtinProfile('native'), name: 'products-sheet', sheet: 'Products' }),
      );
      const book = XLSX.utils.book_new();
      const sheetOf = (rows: Row[]) =>
        XLSX.utils.aoa_to_sheet([
          [...HEADER],
          ...rows.map((row) => HEADER.map((column) => row[column] ?? '')),
        ]);
      XLSX.utils.book_append_sheet(book, sheetOf(family('RTYSHA')), 'Products');
      const untyped: Row = {
        externalId: 'RTYSHB-NOTYPE',
        level: 'style',
        name: 'No type',
        PLM_ID: 'RTYSHB-NOTYPE',
      };
      XLSX.utils.book_append_sheet(book, sheetOf([...family('RTYSHB'), untyped]), 'Next season');
      const workbook = await file(
        'retry-sheets.xlsx',
        XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer,
      );

      const first = await start({ file: workbook, mappingFile: mapping, sheet: 'Next season' });
      expect(first.result).toMatchObject({ sheetName: 'Next season', products: { created: 3, rejected: 1 } });
      const rejectsFile = first.result.rejectsFile as string;
      const rejects = XLSX.read(readFileSync(rejectsFile));
      expect(rejects.SheetNames).toEqual(['Next season']);
      const fixed = XLSX.utils.sheet_to_json<Record<string, string>>(
        rejects.Sheets['Next season'] as XLSX.WorkSheet,
      );
      const again = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(
        again,
        XLSX.utils.json_to_sheet(fixed.map((row) => ({ ...row, styleType: 'T-shirts' }))),
        'Next season',
      );
      await writeFile(rejectsFile, XLSX.write(again, { type: 'buffer', bookType: 'xlsx' }) as Buffer);

      const retried = await retry(first.workflowId);
      expect(retried.result).toMatchObject({
        sheetName: 'Next season',
        rejectsFile: null,
        products: { created: 1, rejected: 0 },
      });
      expect(await product('RTYSHB-NOTYPE')).toMatchObject({ styleTypeId: 'st_tshirts' });
    });
  });

  describe('9. dry runs look like real runs', () => {
    it('a dry run writes the same rejects file a real run would, and its plan counts archived and skipped rows', async () => {
      const rows = [
        ...family('DRY9'),
        { externalId: 'DRY9-BAD', level: 'style', name: 'No type', isComponent: 'no', PLM_ID: 'DRY9-BAD' },
      ];
      await run({ file: await file('dry9-seed.csv', toCsv(family('DRY9'))), profile: 'native' });
      await api('/styles/archive', {
        method: 'POST',
        body: JSON.stringify({ ids: [(await product('DRY9')).id] }),
      });
      const sheet = await file('dry9.csv', toCsv(rows));
      const before = snapshot();
      const dry = await run({ file: sheet, profile: 'native', dryRun: true });
      expect(writesSince(before)).toBe(0);
      expect(dry.plan).toMatchObject({ archived: 3, invalid: 1, skipped: 0 });
      expect(dry.rejectsFile).not.toBeNull();
      const real = await run({ file: sheet, profile: 'native' });
      expect(readFileSync(dry.rejectsFile as string, 'utf8')).toBe(
        readFileSync(real.rejectsFile as string, 'utf8'),
      );
    });
  });
});

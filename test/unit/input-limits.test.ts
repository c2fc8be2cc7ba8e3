import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  neutraliseRejectsCell,
  quoteInput,
  quoteList,
  restoreRejectsCell,
  scanTextFile,
} from '../../connectors/input-limits';
import { readExportFile } from '../../connectors/erp-orders/read';
import { ExportReadError } from '../../connectors/erp-orders/read/types';
import { writeRejects } from '../../connectors/erp-orders/rejects';
import { writeRejects as writePlmRejects } from '../../connectors/plm-import/rejects';
import { openSheet } from '../../connectors/plm-import/read/open-sheet';
import { heavyWorkbook } from '../bad-input/corpus';

/**
 * Issue 17: hostile and huge input never stalls a worker. What the readers share (connectors/input-limits.ts and the
 * read thread), checked on both jobs' readers.
 */
describe('input limits shared by both jobs', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'input-limits-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('quotes input at most 200 characters, then says how long it was, with control characters made visible', () => {
    expect(quoteInput('PO-1')).toBe('PO-1');
    expect(quoteInput('x'.repeat(3 * 1024 * 1024))).toBe(`${'x'.repeat(200)}… (3,145,728 characters)`);
    expect(quoteInput('a\u0000b\nc')).toBe('a\\u0000b\\nc');
    expect(quoteList(Array.from({ length: 30_000 }, (_, i) => `note${i}`))).toMatch(
      /'note9' and 29,990 more$/,
    );
  });

  it.each(['=1+1', '+46 70', '-5', '@SUM(A1)', '\tx', '\rx', "'=already", "''-twice", 'plain', "'plain", ''])(
    'a rejects cell %j is neutralised so a spreadsheet shows it as text, and restored exactly',
    (value) => {
      const written = neutraliseRejectsCell(value);
      expect(/^[=+\-@\t\r]/.test(written)).toBe(false);
      expect(restoreRejectsCell(written)).toBe(value);
    },
  );

  it('a fixed rejects file (csv and xlsx) reads back the original values, in both jobs', async () => {
    const table = await readExportFile(
      write(dir, 'orders.csv', `order_number,note,quantity\n=cmd|' /C calc'!A0,-minus,-5\n@PO-2,+plus,3\n`),
    );
    const rejects = writeRejects(table, [
      { rows: [2, 3], code: 'invalid_value', message: '=not a formula either', problems: [] },
    ]);
    const text = rejects.content.toString('utf8');
    expect(text).toContain(`'=cmd|' /C calc'!A0,'-minus,'-5`);
    expect(text).toContain("'=not a formula either");
    const back = await readExportFile(write(dir, 'rejects.csv', rejects.content));
    expect(back.rows.map((row) => row.values)).toEqual(
      table.rows.map((row) => ({
        ...row.values,
        error_code: 'invalid_value',
        error_message: '=not a formula either',
      })),
    );

    const xlsxTable = { ...table, format: 'xlsx' as const };
    const xlsxRejects = writeRejects(xlsxTable, [
      { rows: [2], code: 'invalid_value', message: 'bad', problems: [] },
    ]);
    const xlsxBack = await readExportFile(write(dir, 'rejects.xlsx', xlsxRejects.content));
    expect(xlsxBack.rows[0]?.values).toMatchObject(table.rows[0]?.values ?? {});

    const plmSource = write(dir, 'products.csv', 'externalId,name,description\nP-1,-Tee,=HYPERLINK("x")\n');
    const plmRejects = await writePlmRejects({
      sourcePath: plmSource,
      issues: [{ rowNumber: 2, column: 'name', code: 'missing_required', message: 'row 2: bad' }],
      outputPath: join(dir, 'products.rejects.csv'),
    });
    expect(readFileSync(plmRejects.path, 'utf8')).toContain(`'-Tee,"'=HYPERLINK(""x"")"`);
    const reread = await openSheet(plmRejects.path);
    const rows = [];
    for await (const row of reread.rows()) rows.push(row.cells);
    expect(rows).toEqual([{ externalId: 'P-1', name: '-Tee', description: '=HYPERLINK("x")' }]);
  });

  // Its time is a figure of bench/bad-input.ts (gen-header-30000-repeated-note.csv, both jobs).
  it('a header of 30,000 repeated names is refused by both jobs, naming the limit', async () => {
    const file = write(dir, 'notes.csv', `${Array(30_000).fill('note').join(',')}\n1\n`);
    await expect(readExportFile(file)).rejects.toMatchObject({ code: 'header_too_long' });
    await expect(openSheet(file)).rejects.toMatchObject({ code: 'header_too_long' });
    // Under the header limit the duplicate check itself runs, in one pass.
    const many = write(dir, 'many.csv', `${Array(1_900).fill('n').join(',')}\n1\n`);
    await expect(readExportFile(many)).rejects.toMatchObject({
      code: 'duplicate_headers',
      message: expect.stringContaining("'n' (columns A, B, C, D, E and 1,895 more)"),
    });
  });

  it('CR LF, LF and a lone CR each end a line when a text file is checked, in UTF-8 and UTF-16', async () => {
    const rows = Array.from({ length: 80 }, (_, index) => `${index},${'n'.repeat(1_000)}`);
    for (const newline of ['\r', '\n', '\r\n']) {
      const text = `a,b${newline}${rows.join(newline)}${newline}`;
      expect(await scanTextFile(write(dir, 'lines.csv', text))).toMatchObject({ lines: 82 });
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      expect(await scanTextFile(write(dir, 'lines16.csv', utf16))).toMatchObject({ lines: 82 });
    }
    // A CR LF cut by the 1 MiB read between its two bytes is still one line end.
    const cut = `${'x'.repeat(1024 * 1024 - 1)}\r\n1\r\n`;
    const limits = { textFileBytes: 1e9, headerChars: 2e6, lineBytes: 2e6, dataRows: 10 };
    expect(await scanTextFile(write(dir, 'cut.csv', cut), limits)).toMatchObject({ lines: 3 });
    const long = write(dir, 'long-cr.csv', `a,b\r1,${'x'.repeat(1_100_000)}\r`);
    await expect(scanTextFile(long)).rejects.toMatchObject({
      code: 'line_too_long',
      message: expect.stringMatching(/^line 2 of the file is/),
    });
  });

  it('a workbook read that cannot finish in time is stopped and fails once, saying so; the event loop kept turning', async () => {
    const file = write(dir, 'heavy.xlsx', heavyWorkbook(20_000));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    await expect(readExportFile(file, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'read_timeout',
      message: expect.stringMatching(
        /^reading the workbook did not finish within 0 s \(the limit\); it was stopped/,
      ),
    });
    delay.disable();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(delay.max / 1e6).toBeLessThan(500);
    // The same file with time to finish: read on the thread, every row back.
    const table = await readExportFile(file, { format: 'xlsx' });
    expect(table.rows).toHaveLength(20_000);
  });

  it('a 3 MB order number never reaches a message whole', async () => {
    const file = write(dir, 'big-cell.json', JSON.stringify([{ order_number: 'Q'.repeat(3 * 1024 * 1024) }]));
    const error = await readExportFile(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExportReadError);
    expect((error as Error).message.length).toBeLessThan(600);
    expect((error as Error).message).toMatch(
      /^row 1, column 'order_number' holds 3,145,728 characters, over the limit of 32,767/,
    );
  });
});

function write(dir: string, name: string, content: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

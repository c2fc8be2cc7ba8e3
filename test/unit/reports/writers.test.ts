import * as XLSX from 'xlsx';
import { htmlDocument, htmlTable, tableMatrix, toCsv, toXlsx, type Table } from '../../../connectors/reports';

interface Row {
  name: string;
  supplier: string;
  days: number;
}

const table: Table<Row> = {
  name: 'Expired',
  columns: [
    { header: 'Certificate', value: (r) => r.name },
    { header: 'Supplier', value: (r) => r.supplier },
    { header: 'Days', value: (r) => r.days },
  ],
  rows: [
    { name: '=HYPERLINK("http://evil")', supplier: 'Porto, "Trims"', days: -3 },
    { name: '+cmd', supplier: '@risk', days: 12 },
    { name: 'GOTS <scope>', supplier: 'Åsa & Co', days: 40 },
  ],
};

describe('report writers', () => {
  it('csv: quotes separators and neutralises formula-looking text but keeps numbers', () => {
    const csv = toCsv(table);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe('Certificate,Supplier,Days');
    expect(lines[1]).toBe(`"'=HYPERLINK(""http://evil"")","Porto, ""Trims""",-3`);
    expect(lines[2]).toBe("'+cmd,'@risk,12");
  });

  // An xlsx text cell (t="s") is never a formula, so it holds the text as given: no apostrophe in front of a supplier
  // "+Plus Textiles" or a document number "-CU-1234". Only the csv, which a spreadsheet parses, is neutralised.
  it('xlsx: opens with SheetJS, freezes the header, fits widths; formula-looking text is a plain text cell as given', () => {
    const buffer = toXlsx([tableMatrix(table)]);
    const book = XLSX.read(buffer, { type: 'buffer', cellStyles: true });
    expect(book.SheetNames).toEqual(['Expired']);
    const sheet = book.Sheets['Expired'];
    expect(sheet).toBeDefined();
    const rows = XLSX.utils.sheet_to_json<Record<string, unknown>>(sheet!, { defval: null });
    expect(rows[0]).toEqual({
      Certificate: '=HYPERLINK("http://evil")',
      Supplier: 'Porto, "Trims"',
      Days: -3,
    });
    expect(rows[1]).toEqual({ Certificate: '+cmd', Supplier: '@risk', Days: 12 });
    for (const address of ['A2', 'A3', 'B3']) {
      expect([address, sheet![address]?.t, sheet![address]?.f]).toEqual([address, 's', undefined]);
    }
    const xml = XLSX.CFB.find(XLSX.CFB.read(buffer, { type: 'buffer' }), '/xl/worksheets/sheet1.xml');
    expect(Buffer.from(xml!.content as Uint8Array).toString('utf8')).toContain('state="frozen"');
    expect(sheet!['!cols']?.[0]?.wch).toBeGreaterThanOrEqual('=HYPERLINK("http://evil")'.length);
  });

  it('html: escapes every value and says when a table is empty', () => {
    const page = htmlDocument(
      'Report <x>',
      htmlTable(table) + htmlTable({ ...table, name: 'Later', rows: [] }),
    );
    expect(page).toContain('GOTS &lt;scope&gt;');
    expect(page).toContain('Åsa &amp; Co');
    expect(page).toContain('<title>Report &lt;x&gt;</title>');
    expect(page).toContain('class="empty"');
    expect(page).not.toContain('<scope>');
  });
});

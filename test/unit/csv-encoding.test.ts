import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decideEncoding, encodeText, excelSepLine, openCsvText } from '../../connectors/csv-encoding';

/** The one encoding decision both csv readers (PLM import, ERP push) use. */
describe('csv encoding, decided over the whole file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'csv-encoding-'));
  const file = (name: string, bytes: Buffer): { path: string } => {
    const at = path.join(dir, name);
    writeFileSync(at, bytes);
    return { path: at };
  };
  const collect = async (text: AsyncIterable<string>): Promise<string> => {
    let all = '';
    for await (const part of text) all += part;
    return all;
  };

  it('a Windows-1252 byte after 3 MB of ASCII still makes the file Windows-1252, naming the line', async () => {
    const ascii = 'a,b\n' + 'xxxxxxxxx,1\n'.repeat(250_000);
    const source = file('late.csv', Buffer.from(`${ascii}Müller,2\n`, 'latin1'));
    const decision = await decideEncoding(source);
    expect(decision).toEqual({
      encoding: 'windows-1252',
      bom: false,
      firstNonUtf8: { offset: Buffer.byteLength(ascii) + 1, line: 250_002 },
    });
    const text = await collect((await openCsvText(source)).text);
    expect(text.endsWith('Müller,2\n')).toBe(true);
  });

  it('UTF-8 with a BOM, UTF-16LE and UTF-16BE with a BOM decode without their BOM', async () => {
    for (const encoding of ['utf-8', 'utf-16le', 'utf-16be'] as const) {
      const source = file(`${encoding}.csv`, encodeText('a;b\nÉté;2\n', encoding, true));
      const csv = await openCsvText(source);
      expect(csv.decision).toEqual({ encoding, bom: true, firstNonUtf8: null });
      expect(await collect(csv.text)).toBe('a;b\nÉté;2\n');
    }
  });

  it("Excel's sep= first line names the delimiter and is left out of the text", async () => {
    expect(excelSepLine('sep=;\r\na;b\n')).toEqual({ delimiter: ';', length: 7 });
    expect(excelSepLine('"sep=|"\na|b')).toEqual({ delimiter: '|', length: 8 });
    expect(excelSepLine('sep_code,b\n')).toBeNull();
    const csv = await openCsvText(Buffer.from('sep=;\na;b\n1;2\n'));
    expect(csv.sepDelimiter).toBe(';');
    expect(await collect(csv.text)).toBe('a;b\n1;2\n');
  });
});

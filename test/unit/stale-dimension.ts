import * as XLSX from 'xlsx';

/**
 * The workbook with its first sheet's `<dimension>` tag rewritten to `ref`, as some non-Excel writers leave it
 * (stale: smaller or larger than the cells the sheet holds).
 */
export function withStaleDimension(workbook: Buffer, ref: string): Buffer {
  const zip = XLSX.CFB.read(workbook, { type: 'buffer' });
  const entry = XLSX.CFB.find(zip, '/xl/worksheets/sheet1.xml');
  if (!entry?.content) throw new Error('the workbook has no xl/worksheets/sheet1.xml');
  const xml = Buffer.from(entry.content).toString('utf8');
  const stale = xml.replace(/<dimension ref="[^"]*"\/>/, `<dimension ref="${ref}"/>`);
  if (stale === xml) throw new Error('sheet1.xml has no <dimension> tag to rewrite');
  entry.content = Buffer.from(stale, 'utf8');
  entry.size = entry.content.length;
  return XLSX.CFB.write(zip, { type: 'buffer', fileType: 'zip' }) as Buffer;
}

import { csvRecords } from '../../connectors/csv-records';

async function* chunks(parts: readonly string[]): AsyncGenerator<string> {
  for (const part of parts) yield part;
}

async function records(parts: readonly string[], delimiter = ','): Promise<string[][]> {
  const read: string[][] = [];
  for await (const record of csvRecords(chunks(parts), delimiter)) read.push(record.values);
  return read;
}

describe('csv records: every line end outside quotes ends a record', () => {
  it('reads CRLF, LF and CR line ends in one file as separate rows, however the text is cut into chunks', async () => {
    for (const text of ['a,b\r\n1,2\n3,4\r5,6\r\n', 'a,b\n1,2\r\n3,4\r5,6\r', 'a,b\r1,2\r\n3,4\n5,6'])
      for (let cut = 1; cut < text.length; cut++)
        expect(await records([text.slice(0, cut), text.slice(cut)])).toEqual([
          ['a', 'b'],
          ['1', '2'],
          ['3', '4'],
          ['5', '6'],
        ]);
  });

  it('keeps line breaks inside quoted cells as written, however the text is cut into chunks', async () => {
    const text = 'a;b\r\n1;"x\r\ny ""q"""\n"2";"\rz"\r';
    const expected = [
      ['a', 'b'],
      ['1', 'x\r\ny "q"'],
      ['2', '\rz'],
    ];
    for (let cut = 1; cut < text.length; cut++)
      expect(await records([text.slice(0, cut), text.slice(cut)], ';')).toEqual(expected);
  });

  it('a quote inside an unquoted cell is text and does not hide the line end after it', async () => {
    expect(await records(['size,name\r\n5" tee,A\n6,B\r\n'])).toEqual([
      ['size', 'name'],
      ['5" tee', 'A'],
      ['6', 'B'],
    ]);
  });
});

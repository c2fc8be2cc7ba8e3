/**
 * JSON order exports as Windows tools write them, through the real push (Temporal dev server + sandbox): Windows
 * PowerShell 5's `ConvertTo-Json | Out-File` writes UTF-16 with a byte-order mark.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ORDER_HEADER, orderLine } from '../bad-input/corpus';
import type { TestStack } from '../harness';
import { jobStarters, startJobStack } from './job-stack';

describe('JSON exports in UTF-16 through the order push', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('hostile-json-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const { push } = jobStarters(() => stack, 'json16');
  const order = (orderNumber: string): Record<string, string> =>
    Object.fromEntries(ORDER_HEADER.map((name, index) => [name, orderLine(orderNumber)[index] ?? '']));
  const bom = { utf16le: Buffer.from([0xff, 0xfe]), utf16be: Buffer.from([0xfe, 0xff]) } as const;
  const utf16 = (text: string, order: 'utf16le' | 'utf16be'): Buffer => {
    const bytes = Buffer.from(text, 'utf16le');
    if (order === 'utf16be') bytes.swap16();
    return Buffer.concat([bom[order], bytes]);
  };

  it('a UTF-16 JSON array (little-endian) and NDJSON (big-endian) push their orders', async () => {
    const array = path.join(dir, 'orders-utf16.json');
    const first = `PO-J16-${process.pid}-1`;
    writeFileSync(array, utf16(JSON.stringify([order(first)], null, 2), 'utf16le'));
    expect((await (await push(array)).result()).orders).toMatchObject({ created: 1, rejected: 0 });

    const lines = path.join(dir, 'orders-utf16.ndjson');
    const second = `PO-J16-${process.pid}-2`;
    writeFileSync(lines, utf16(`${JSON.stringify(order(second))}\r\n`, 'utf16be'));
    expect((await (await push(lines)).result()).orders).toMatchObject({ created: 1, rejected: 0 });
  });
});

/**
 * JSON inputs of the order push through the real job (Temporal dev server + sandbox): exports as Windows tools write
 * them (Windows PowerShell 5's `ConvertTo-Json | Out-File` writes UTF-16 with a byte-order mark), and mapping files
 * that are not small regular files.
 */
import { execFileSync } from 'node:child_process';
import { openSync, closeSync, constants, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ORDER_HEADER, orderLine } from '../bad-input/corpus';
import type { TestStack } from '../harness';
import { erpOrdersRunner, jobStarters, startJobStack } from './job-stack';

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

  it('a mapping file that is a FIFO or too big fails the run at once, saying why; no worker thread waits on it', async () => {
    const run = erpOrdersRunner(() => stack, 'erp-orders-mapping');
    const file = path.join(dir, 'orders-for-mapping.csv');
    writeFileSync(file, `${ORDER_HEADER.join(',')}\n${orderLine(`PO-MAP-${process.pid}`).join(',')}\n`);
    const fifo = path.join(dir, 'mapping.fifo');
    execFileSync('mkfifo', [fifo]);
    try {
      const started = Date.now();
      await expect(run({ file, mappingFile: fifo })).rejects.toMatchObject({
        cause: { message: expect.stringContaining(`mapping profile ${fifo}: it is not a regular file`) },
      });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      // Releases a read that did block on the FIFO (before the fix), so the worker can stop.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: no one reads it.
      }
    }
    const big = path.join(dir, 'big-mapping.json');
    writeFileSync(big, `{"columns":{},"note":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    await expect(run({ file, mappingFile: big })).rejects.toMatchObject({
      cause: {
        message: expect.stringContaining(
          'is 2,097,176 bytes, over the limit of 1,048,576 bytes for a mapping file',
        ),
      },
    });
  }, 60_000);
});

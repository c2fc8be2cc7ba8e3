/**
 * Csv files whose line endings are not one style throughout, through the real jobs (Temporal dev server + sandbox):
 * rows appended with another tool (CRLF file, LF rows) and classic Mac files (CR only). Every row is read as its own
 * row; none is merged into the row above it or refused as one long line.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ORDER_HEADER, orderLine } from '../bad-input/corpus';
import type { TestStack } from '../harness';
import { NATIVE_HEADER, type NativeRow } from '../unit/plm-activities/native-sheet';
import { jobStarters, startJobStack } from './job-stack';

describe('csv line endings through the jobs', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('hostile-line-endings-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const { push, importSheet } = jobStarters(() => stack, 'eol');
  const nativeLine = (row: NativeRow): string => NATIVE_HEADER.map((column) => row[column] ?? '').join(',');
  const style = (externalId: string, name: string): NativeRow => ({
    externalId,
    level: 'style',
    name,
    styleType: 'T-shirts',
    isComponent: 'no',
    PLM_ID: externalId,
  });

  const productName = async (externalId: string): Promise<string | null> => {
    const response = await fetch(`${stack.sandbox.baseUrl}/styles/${encodeURIComponent(externalId)}`, {
      headers: { companyapikey: stack.apiKey },
    });
    if (response.status === 404) return null;
    return z.object({ data: z.object({ name: z.string() }) }).parse(await response.json()).data.name;
  };

  it('a CRLF export with rows appended with LF line ends imports every row as its own product', async () => {
    const prefix = `EOL-MIX-${process.pid}`;
    const windows = [style(`${prefix}-1`, 'First tee'), style(`${prefix}-2`, 'Second tee')];
    const appended = [style(`${prefix}-3`, 'Third tee'), style(`${prefix}-4`, 'Fourth tee')];
    const file = path.join(dir, 'mixed-endings.csv');
    writeFileSync(
      file,
      [NATIVE_HEADER.join(','), ...windows.map(nativeLine)].join('\r\n') +
        '\r\n' +
        appended.map(nativeLine).join('\n') +
        '\n',
    );
    const result = await (await importSheet(file)).result();
    expect(result.products).toMatchObject({ created: 4, rejected: 0 });
    for (const row of [...windows, ...appended]) expect(await productName(row.externalId)).toBe(row.name);
  });

  it('a classic Mac (CR only) order export over 64 KiB is pushed, not refused as one long header', async () => {
    const orderNumber = `PO-EOL-CR-${process.pid}`;
    const header = [...ORDER_HEADER, 'note'].join(',');
    const lines = Array.from({ length: 80 }, (_, index) =>
      [...orderLine(orderNumber, index + 1), 'n'.repeat(1_000)].join(','),
    );
    const file = path.join(dir, 'mac-orders.csv');
    writeFileSync(file, `${[header, ...lines].join('\r')}\r`);
    const result = await (await push(file)).result();
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
  });
});

/**
 * A JSON export's columns are the keys its objects use. A csv header over `inputLimits.columns` columns is refused
 * whole; JSON keys had no such bound, so 25 MB of objects each with its own keys (2,000,000 columns) held the worker's
 * main thread for 38 s and 1.4 GB before the profile check even ran (figures: bench/bad-input.ts).
 */
import { readJson } from '../../../connectors/erp-orders/read/json';
import { inputLimits } from '../../../connectors/input-limits';

const distinctKeys = (rows: number): string[] =>
  Array.from({ length: rows }, (_, r) => JSON.stringify({ order_number: `PO-${r}`, [`note_${r}`]: 'x' }));

describe('JSON exports with more distinct keys than the column limit', () => {
  it.each([
    ['a JSON array', (lines: string[]) => `[${lines.join(',')}]`],
    ['NDJSON', (lines: string[]) => `${lines.join('\n')}\n`],
  ])(
    '%s whose objects use 3,000 distinct keys is refused whole, naming the row, the key and the limit',
    async (_, text) => {
      const read = readJson(text(distinctKeys(3_000)));
      await expect(read).rejects.toMatchObject({ code: 'too_many_columns' });
      const { message } = (await read.catch((error: unknown) => error)) as Error;
      expect(message).toContain(inputLimits.columns.toLocaleString('en-US'));
      // The 2,001st distinct key (order_number is the first) is on row 2,000.
      expect(message).toContain('row 2,000');
      expect(message).toContain("'note_1999'");
      expect(message.length).toBeLessThan(500);
    },
  );

  it('2,000 distinct keys in all are read', async () => {
    const table = await readJson(`[${distinctKeys(1_999).join(',')}]`);
    expect(table.columns).toHaveLength(2_000);
  });
});

describe('an NDJSON cell over the cell limit', () => {
  it('refuses the file whole as cell_too_long, as a csv or a JSON array does, not as a line that is not JSON', async () => {
    const text = `${JSON.stringify({ order_number: 'PO-1' })}\n${JSON.stringify({ order_number: 'P'.repeat(50_000) })}\n`;
    const read = readJson(text);
    await expect(read).rejects.toMatchObject({ code: 'cell_too_long' });
    const { message } = (await read.catch((error: unknown) => error)) as Error;
    expect(message).toMatch(/^row 2, column 'order_number' holds 50,000 characters/);
    expect(message.length).toBeLessThan(500);
  });
});

/**
 * The PLM import reads the values of real exports as their authors meant them: locale numbers, codes Excel turned
 * into scientific notation, style levels, single-variant Shopify products and `overriddenFlag: null`. Every test runs
 * the real workflow on a Temporal dev server against the sandbox over HTTP; the shared setup is plm-rules-stack.ts.
 */
import { family, HEADER, plmRulesStack, toCsv, type Row } from './plm-rules-stack';

interface WeightedProduct {
  weight: { unit: string; value: number } | null;
}

/** The sheet as Excel saves csv in a comma-decimal locale: `;` between columns, decimal commas. */
const toSemicolonCsv = (rows: readonly Row[]): string =>
  [HEADER.join(';'), ...rows.map((row) => HEADER.map((column) => row[column] ?? '').join(';'))].join('\r\n') +
  '\r\n';

describe('PLM import: values as the export meant them', () => {
  const { file, run, api, rejectsOf } = plmRulesStack();

  describe('locale numbers', () => {
    // README: "1.234,5" is handled; a `;`-delimited csv is Excel's export in a comma-decimal locale (German, French).
    it('a ;-delimited export reads "0,250" as 0.25 and "1.250" as 1250, never a thousand times off', async () => {
      const rows = [
        ...family('DEW1', { sku: { weight: '0,250', weightUnit: 'KILOGRAM' } }),
        ...family('DEW2', { sku: { weight: '1,150', weightUnit: 'KILOGRAM' } }),
        ...family('DEW3', { sku: { weight: '1.250', weightUnit: 'GRAM' } }),
      ];
      const result = await run({ file: await file('german.csv', toSemicolonCsv(rows)), profile: 'native' });
      expect(rejectsOf(result)).toEqual([]);
      const weight = async (externalId: string) =>
        (await api<WeightedProduct>(`/styles/${externalId}`)).weight;
      expect(await weight('DEW1-BLK-M')).toEqual({ unit: 'KILOGRAM', value: 0.25 });
      expect(await weight('DEW2-BLK-M')).toEqual({ unit: 'KILOGRAM', value: 1.15 });
      expect(await weight('DEW3-BLK-M')).toEqual({ unit: 'GRAM', value: 1250 });
    });

    it('"0,250" is never a thousands group, and "1,250" without a locale hint is a bad_number naming row, column and both readings', async () => {
      const rows = [
        ...family('ENW1', { sku: { weight: '0,250', weightUnit: 'KILOGRAM' } }),
        ...family('ENW2', { sku: { weight: '1,250', weightUnit: 'GRAM' } }),
      ];
      const result = await run({ file: await file('comma.csv', toCsv(rows)), profile: 'native' });
      expect((await api<WeightedProduct>('/styles/ENW1-BLK-M')).weight).toEqual({
        unit: 'KILOGRAM',
        value: 0.25,
      });
      const rejects = rejectsOf(result);
      expect(rejects.map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'ENW2-BLK-M bad_number',
      ]);
      expect(rejects[0]?.message).toMatch(
        /row 7, column 'weight': weight '1,250' could be 1250 .* or 1\.25 /,
      );
    });
  });
});

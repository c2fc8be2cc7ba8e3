import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildDemoSeed } from '../../sandbox/seed/demo';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import type { TestStack } from '../harness';
import { erpOrdersRunner, startJobStack } from './job-stack';

// Spec 03, GET /companies: the `internalCompanyCode` filter is a "case-insensitive substring" and the endpoint "maps an
// external company code to the platform company id". A code two companies share maps to neither; and the push reads
// codes one filter at a time or the whole network at once (whichever is fewer calls): both must give one answer.
describe('erpOrders company codes over a network of more than one page', () => {
  let stack: TestStack;
  let dir: string;
  const BRAND = 'cmp_brand_nordic_threads';
  const run = erpOrdersRunner(() => stack, 'erp-codes');
  const push = (file: string): Promise<PushErpOrdersResult> => run({ file });
  const csv = async (name: string, rows: ReadonlyArray<[string, string]>): Promise<string> => {
    const file = path.join(dir, name);
    const lines = rows.map(([order, code]) => `${order},${code},1,PLM-TEE-001-BLK,1,pcs`);
    await writeFile(
      file,
      ['order_number,supplier_code,line_number,product_external_id,quantity,unit', ...lines, ''].join('\n'),
    );
    return file;
  };

  beforeAll(async () => {
    const seed = buildDemoSeed(Date.now());
    const extra = [
      { id: 'cmp_dup_izmir', name: 'Anatolia Izmir', internalCompanyCode: 'DUP-1001' },
      { id: 'cmp_dup_bursa', name: 'Anatolia Bursa', internalCompanyCode: 'DUP-1001' },
      { id: 'cmp_case_only', name: 'Case Mills', internalCompanyCode: 'CASE-7' },
      ...Array.from({ length: 120 }, (_, n) => ({
        id: `cmp_fill_${n}`,
        name: `Filler ${n}`,
        internalCompanyCode: `FILL-${n}`,
      })),
    ].map((company) => ({ ...company, officialName: null, city: null, country: null, network: [BRAND] }));
    const companies = seed.companies.map((company) =>
      company.id === BRAND
        ? { ...company, network: [...company.network, ...extra.map((e) => e.id)] }
        : company,
    );
    ({ dir, stack } = await startJobStack('erp-codes-it-', {
      seed: { ...seed, companies: [...companies, ...extra] },
    }));
  }, 60_000);

  afterAll(() => stack?.stop());

  const refusal = (result: PushErpOrdersResult, orderNumber: string) =>
    result.rejections.find((rejection) => rejection.orderNumber === orderNumber);

  it('a code two companies share is refused for its order, naming both, whether read by code or whole network', async () => {
    // One code, a network of two pages: the code is looked up through the filter.
    const byCode = await push(await csv('one-code.csv', [['DUPC-1', 'DUP-1001']]));
    // Three codes, two pages: the whole network is read.
    const whole = await push(
      await csv('three-codes.csv', [
        ['DUPW-1', 'DUP-1001'],
        ['DUPW-2', 'SUP-1001'],
        ['DUPW-3', 'FILL-7'],
      ]),
    );
    expect(byCode.orders).toMatchObject({ created: 0, rejected: 1 });
    expect(whole.orders).toMatchObject({ created: 2, rejected: 1 });
    for (const rejected of [refusal(byCode, 'DUPC-1'), refusal(whole, 'DUPW-1')]) {
      expect(rejected?.message).toContain("'DUP-1001'");
      expect(rejected?.message).toContain('cmp_dup_izmir');
      expect(rejected?.message).toContain('cmp_dup_bursa');
    }
  });

  it('a code differing only in case resolves the same way on both read paths', async () => {
    const byCode = await push(await csv('case-one.csv', [['CASEC-1', 'case-7']]));
    const whole = await push(
      await csv('case-three.csv', [
        ['CASEW-1', 'case-7'],
        ['CASEW-2', 'SUP-1001'],
        ['CASEW-3', 'FILL-8'],
      ]),
    );
    expect(byCode.orders).toMatchObject({ created: 1, rejected: 0 });
    expect(whole.orders).toMatchObject({ created: 3, rejected: 0 });
  });
});

import { companyResolverFromDirectory } from '../../../connectors/erp-orders/orders/lookups';

// Spec 03, GET /companies: the code filter is a "case-insensitive substring"; the endpoint "maps an external company
// code to the platform company id". A code two companies share maps to neither.
describe('company codes → ids', () => {
  const resolve = companyResolverFromDirectory([
    { id: 'cmp_izmir', code: 'SUP-1001', name: 'Anatolia Izmir' },
    { id: 'cmp_bursa', code: 'SUP-1001', name: 'Anatolia Bursa' },
    { id: 'cmp_a', code: 'abc' },
    { id: 'cmp_b', code: 'ABC' },
    { id: 'cmp_case', code: 'CASE-7' },
  ]);

  it('refuses a code two companies share, naming both, exactly or with case set aside', () => {
    expect(resolve('SUP-1001')).toEqual({
      error:
        "company code 'SUP-1001' is the code of 2 companies: cmp_izmir (Anatolia Izmir) and cmp_bursa (Anatolia Bursa); " +
        'give the company id instead, or make the codes unique on the platform',
      suggestions: [],
    });
    expect(resolve('Abc')).toMatchObject({ error: expect.stringContaining('cmp_a and cmp_b') });
  });

  it('takes the exact code first, then the one code equal with case set aside', () => {
    expect(resolve('abc')).toEqual({ id: 'cmp_a' });
    expect(resolve('case-7')).toEqual({ id: 'cmp_case' });
    expect(resolve('NOPE')).toMatchObject({ error: "no company has the code 'NOPE'" });
  });

  it('names five of the companies a code is shared by and how many more: the error stays a line', () => {
    const shared = companyResolverFromDirectory(
      Array.from({ length: 40 }, (_, i) => ({
        id: `cmp_${i}`,
        code: 'DYE',
        name: `Dye House ${'x'.repeat(300)}`,
      })),
    );
    const { error } = shared('DYE') as { error: string };
    expect(error).toMatch(
      /^company code 'DYE' is the code of 40 companies: cmp_0 \(Dye House x+….*cmp_4 .* and 35 more;/,
    );
    expect(error.length).toBeLessThan(1_000);
  });
});

import { companyResolver, foldCompanyCode, type CompanyWording } from '../../connectors/companies';

const wording: CompanyWording<string> = {
  found: (id) => `found ${id}`,
  ambiguous: (text, matches) =>
    `${text}: ${matches.map(({ by, company }) => `${by} of ${company.id}`).join(', ')}`,
  unknown: (text, suggestions) => `unknown ${text} [${[...suggestions].sort().join(', ')}]`,
};

const companies = [
  { id: 'cmp_a', internalCompanyCode: 'A-1', name: 'Acme', officialName: 'acme ' },
  { id: 'cmp_b', internalCompanyCode: 'a-1', name: 'Beta', officialName: null },
  { id: 'cmp_c', internalCompanyCode: null, name: 'Beta', officialName: null },
];

describe('companyResolver', () => {
  it('folds case and surrounding spaces', () => {
    expect(foldCompanyCode('  AbC-1 ')).toBe('abc-1');
  });

  it('tries only the steps it is given, in their order', () => {
    const byCode = companyResolver(companies, ['code', 'foldedCode'], wording);
    expect(byCode('cmp_a')).toBe('unknown cmp_a []');
    expect(byCode('A-1')).toBe('found cmp_a');
    expect(byCode(' A-1')).toBe(' A-1: code of cmp_a, code of cmp_b');
    expect(byCode('Acme')).toBe('unknown Acme []');
    expect(byCode('A-2')).toBe('unknown A-2 [A-1, a-1]');
    const byAll = companyResolver(companies, ['id', 'code', 'foldedCode', 'name'], wording);
    expect(byAll('cmp_c')).toBe('found cmp_c');
    expect(byAll('ACME')).toBe('found cmp_a');
    expect(byAll('beta')).toBe('beta: name of cmp_b, name of cmp_c');
  });

  it('across steps, refuses a text that names different companies at different steps unless an id or one exact code', () => {
    const across = companyResolver(companies, ['id', 'code', 'foldedCode', 'name'], wording, 'acrossSteps');
    expect(across('acme')).toBe('found cmp_a');
    expect(across('A-1')).toBe('found cmp_a');
    expect(across('A-1 ')).toBe('A-1 : code of cmp_a, code of cmp_b');
    const crossed = [
      ...companies,
      { id: 'cmp_d', internalCompanyCode: 'BETA', name: 'Delta', officialName: null },
    ];
    expect(companyResolver(crossed, ['code', 'foldedCode', 'name'], wording, 'acrossSteps')('Beta')).toBe(
      'Beta: code of cmp_d, name of cmp_b, name of cmp_c',
    );
    expect(companyResolver(crossed, ['code', 'foldedCode', 'name'], wording)('Beta')).toBe('found cmp_d');
  });

  it('takes a company listed twice as one', () => {
    const twice = companyResolver([...companies, { ...companies[0]! }], ['id', 'code'], wording);
    expect(twice('cmp_a')).toBe('found cmp_a');
    expect(twice('A-1')).toBe('found cmp_a');
  });
});

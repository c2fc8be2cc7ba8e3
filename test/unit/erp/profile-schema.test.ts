import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { mappingProfileSchema, parseProfile, SOURCE_FIELDS } from '../../../connectors/erp-orders/profile';
import {
  profileFormatMarkdown,
  profileJsonSchemaText,
  profileReadmePath,
  profileSchemaPath,
  withFormatTables,
} from '../../../connectors/erp-orders/profile-schema';
import { repoRoot } from '../../../worker/paths';

const REGENERATE = 'regenerate: node bin/run-ts.cjs connectors/erp-orders/profile-schema.ts';
const EXAMPLES = ['profile-eu.json', 'profile-shopify.json'];

const example = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(repoRoot(), 'examples', 'erp', name), 'utf8')) as Record<string, unknown>;

/** The published file read as an editor would, independently of the zod schema it was made from. */
const published = (): z.ZodType => z.fromJSONSchema(JSON.parse(readFileSync(profileSchemaPath, 'utf8')));

describe('the ERP mapping profile format is a documented contract', () => {
  it(`the committed connectors/erp-orders/profile.schema.json is the one generated from the zod schema (${REGENERATE})`, () => {
    expect(readFileSync(profileSchemaPath, 'utf8')).toBe(profileJsonSchemaText());
  });

  it(`the tables of "The profile format" in connectors/erp-orders/README.md are the generated ones (${REGENERATE})`, () => {
    const readme = readFileSync(profileReadmePath, 'utf8');
    expect(readme).toBe(withFormatTables(readme, profileFormatMarkdown()));
  });

  it('"The profile format" names every key of the zod schema and every field of columns and constants', () => {
    const readme = readFileSync(profileReadmePath, 'utf8');
    const start = readme.indexOf('## The profile format');
    expect(start).toBeGreaterThan(-1);
    const next = readme.indexOf('\n## ', start + 1);
    const section = readme.slice(start, next < 0 ? undefined : next);
    const keys = [...Object.keys(mappingProfileSchema.shape), ...SOURCE_FIELDS];
    expect(keys.filter((key) => !section.includes(`| \`${key}\``))).toEqual([]);
  });

  it.each(EXAMPLES)('the shipped example %s validates against the published schema and runs', (name) => {
    const profile = example(name);
    expect(profile['$schema']).toBe('../../connectors/erp-orders/profile.schema.json');
    expect(published().safeParse(profile).error?.issues).toBeUndefined();
    expect(parseProfile(profile).name).toBe(profile['name']);
  });

  it('the published schema refuses what the push refuses', () => {
    const base = example('profile-eu.json');
    const columns = base['columns'] as Record<string, string>;
    const { orderNumber: _orderNumber, ...withoutOrderNumber } = columns;
    const refused: Array<[string, Record<string, unknown>]> = [
      ['an unknown key', { ...base, colour: 'Colour' }],
      ['a misspelt field', { ...base, columns: { ...columns, ordreNumber: 'PO' } }],
      ['no orderNumber column', { ...base, columns: withoutOrderNumber }],
      ['orderNumber as a constant', { ...base, constants: { orderNumber: 'PO-1' } }],
      ['an unknown date format', { ...base, dateFormat: 'ymd' }],
      ['an unknown unit', { ...base, unitAliases: { stuks: 'PIECE' } }],
      ['an unknown status', { ...base, statusAliases: { Open: 'OPEN' } }],
      ['a responsible person that is no e-mail', { ...base, responsiblePersonIds: { ana: 'usr_1' } }],
      ['a column name of only blanks', { ...base, columns: { ...columns, quantity: '  ' } }],
      ['a profile name of only blanks', { ...base, name: '  ' }],
      ['a code type of only blanks', { ...base, productCodeId: '  ' }],
      ['a sheet name of only blanks', { ...base, sheet: '  ' }],
      ['a unit spelling of only blanks', { ...base, unitAliases: { '  ': 'PIECES' } }],
      ['a status word of only blanks', { ...base, statusAliases: { '  ': 'COMPLETED' } }],
      ['a user id of only blanks', { ...base, responsiblePersonIds: { 'ana@brand.example': '  ' } }],
    ];
    const verdicts = refused.map(([what, profile]) => ({
      what,
      schema: published().safeParse(profile).success ? 'accepted' : 'refused',
      push: (() => {
        try {
          parseProfile(profile);
          return 'accepted';
        } catch {
          return 'refused';
        }
      })(),
    }));
    expect(verdicts).toEqual(refused.map(([what]) => ({ what, schema: 'refused', push: 'refused' })));
  });

  it('a column name of only blanks is refused naming its key and what is wrong with it', () => {
    const base = example('profile-eu.json');
    const columns = base['columns'] as Record<string, string>;
    expect(() => parseProfile({ ...base, columns: { ...columns, quantity: '  ' } })).toThrow(
      'mapping profile is not valid: columns.quantity: got "  ": a column name cannot be only blanks',
    );
  });

  it.each([
    ['name', { name: '  ' }, 'name: got "  ": a profile name cannot be only blanks'],
    ['productCodeId', { productCodeId: '  ' }, 'productCodeId: got "  ": a code type cannot be only blanks'],
    ['sheet', { sheet: '  ' }, 'sheet: got "  ": a sheet name cannot be only blanks'],
    [
      'unitAliases',
      { unitAliases: { '  ': 'PIECES' } },
      'unitAliases: key "  " is not valid (a unit spelling cannot be only blanks)',
    ],
    [
      'statusAliases',
      { statusAliases: { '  ': 'COMPLETED' } },
      'statusAliases: key "  " is not valid (a status word cannot be only blanks)',
    ],
    [
      'responsiblePersonIds',
      { responsiblePersonIds: { 'ana@brand.example': '  ' } },
      'responsiblePersonIds.ana@brand.example: got "  ": a user id cannot be only blanks',
    ],
  ])('%s of only blanks is refused naming its key and what is wrong with it', (_key, change, problem) => {
    expect(() => parseProfile({ ...example('profile-eu.json'), ...change })).toThrow(
      `mapping profile is not valid: ${problem}`,
    );
  });

  it('a constant of only blanks is none: it does not give the unit a column must then give', () => {
    const base = example('profile-eu.json');
    const { unit: _unit, ...columns } = base['columns'] as Record<string, string>;
    expect(() => parseProfile({ ...base, columns, constants: { unit: '  ' } })).toThrow(
      'mapping profile is not valid: columns.unit: a column or a constant must give the unit',
    );
    const kept = parseProfile({
      ...base,
      constants: { factoryCode: '', unit: ' ', supplierCompanyCode: 'SUP-1' },
    });
    expect(kept.constants).toEqual({ supplierCompanyCode: 'SUP-1' });
  });

  it('a list separator of one blank is kept: it splits a list written with spaces', () => {
    expect(parseProfile({ ...example('profile-eu.json'), listSeparators: [' '] }).listSeparators).toEqual([
      ' ',
    ]);
  });
});

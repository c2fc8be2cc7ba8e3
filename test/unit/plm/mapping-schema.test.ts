import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseMappingProfile } from '../../../connectors/plm-import/profiles/schema';
import {
  mappingJsonSchemaText,
  mappingSchemaPath,
} from '../../../connectors/plm-import/profiles/json-schema';
import { repoRoot } from '../../../worker/paths';

describe('the mapping format is a documented contract', () => {
  it('the committed connectors/plm-import/mapping.schema.json is the one generated from the zod schema (regenerate: node bin/run-ts.cjs connectors/plm-import/profiles/json-schema.ts)', () => {
    expect(readFileSync(mappingSchemaPath, 'utf8')).toBe(mappingJsonSchemaText());
  });

  it.each(['shopify-products.mapping.json', 'flat-sku-export.mapping.json'])(
    'the shipped example %s is a valid mapping',
    (name) => {
      const profile = parseMappingProfile(
        JSON.parse(readFileSync(join(repoRoot(), 'examples', 'plm', name), 'utf8')),
      );
      expect(profile.layout).toBe('flat');
    },
  );

  it('every key of the mapping format is described in connectors/plm-import/README.md', () => {
    const readme = readFileSync(join(repoRoot(), 'connectors', 'plm-import', 'README.md'), 'utf8');
    const keys = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        const record = node as Record<string, unknown>;
        if (typeof record['properties'] === 'object' && record['properties'] !== null)
          for (const key of Object.keys(record['properties'])) keys.add(key);
        Object.values(record).forEach(walk);
      }
    };
    walk(JSON.parse(mappingJsonSchemaText()));
    const missing = [...keys].filter((key) => !readme.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });

  describe('a name a user types cannot be only blanks, in the import and in the editor', () => {
    const example = (): Record<string, unknown> =>
      JSON.parse(
        readFileSync(join(repoRoot(), 'examples', 'plm', 'flat-sku-export.mapping.json'), 'utf8'),
      ) as Record<string, unknown>;
    const withStyle = (change: Record<string, unknown>): Record<string, unknown> => {
      const base = example();
      return { ...base, style: { ...(base['style'] as Record<string, unknown>), ...change } };
    };
    const published = (): z.ZodType => z.fromJSONSchema(JSON.parse(readFileSync(mappingSchemaPath, 'utf8')));
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'a mapping name',
        { ...example(), name: '  ' },
        'name: got "  ": a mapping name cannot be only blanks',
      ],
      ['a sheet name', { ...example(), sheet: '  ' }, 'sheet: got "  ": a sheet name cannot be only blanks'],
      [
        'a column of fillDown',
        { ...example(), fillDown: ['Style Number', '  '] },
        'fillDown.1: got "  ": a column name cannot be only blanks',
      ],
      [
        'a column given as shorthand',
        withStyle({ externalId: '  ' }),
        'style.externalId: got "  ": a column name cannot be only blanks',
      ],
      [
        "a source's column",
        withStyle({ fields: { name: { column: ' ' } } }),
        'style.fields.name.column: got " ": a column name cannot be only blanks',
      ],
      [
        'a template',
        withStyle({ fields: { name: { template: '   ' } } }),
        'style.fields.name.template: got "   ": a template cannot be only blanks',
      ],
      [
        'a code type',
        withStyle({ codes: [{ codeId: '  ', source: 'Style Number' }] }),
        'style.codes.0.codeId: got "  ": a code type cannot be only blanks',
      ],
      [
        'a code type by digits',
        withStyle({ codes: [{ byDigits: { '13': '  ' }, source: 'EAN' }] }),
        'style.codes.0.byDigits.13: got "  ": a code type cannot be only blanks',
      ],
      [
        'a custom property key',
        withStyle({ customProperties: { '  ': 'Care' } }),
        'style.customProperties: key "  " is not valid (a custom property key cannot be only blanks)',
      ],
    ];
    it.each(cases)(
      '%s of only blanks is refused naming its key and the reason',
      (_what, mapping, problem) => {
        expect(() => parseMappingProfile(mapping)).toThrow(`invalid mapping profile: ${problem}`);
        expect(published().safeParse(mapping).success).toBe(false);
      },
    );
  });
});

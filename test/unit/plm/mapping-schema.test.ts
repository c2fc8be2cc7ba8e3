import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
});

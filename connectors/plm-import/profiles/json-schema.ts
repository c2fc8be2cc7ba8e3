import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { mappingProfileSchema } from './schema';

/** Where the published JSON Schema of the mapping format lives (committed; a test checks it matches the zod schema). */
export const mappingSchemaPath = join(__dirname, '..', 'mapping.schema.json');

/** The mapping format as JSON Schema (draft 2020-12), generated from the zod schema the import validates with. */
export function mappingJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(mappingProfileSchema, {
    io: 'input',
    unrepresentable: 'any',
    reused: 'ref',
  }) as Record<string, unknown>;
  return {
    ...generated,
    $id: 'https://trace-connectors.invalid/schemas/plm-mapping.schema.json',
    title: 'PLM import mapping',
    description:
      'How the PLM import reads a product sheet: which columns give each product level its externalId, fields, codes and custom properties. Documented key by key in connectors/plm-import/README.md.',
  };
}

export function mappingJsonSchemaText(): string {
  return `${JSON.stringify(mappingJsonSchema(), null, 2)}\n`;
}

// `node bin/run-ts.cjs connectors/plm-import/profiles/json-schema.ts` rewrites connectors/plm-import/mapping.schema.json.
if (process.argv[1] === __filename) {
  writeFile(mappingSchemaPath, mappingJsonSchemaText()).then(
    () => console.log(`wrote ${mappingSchemaPath}`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * The PLM spec-rule tests' shared setup (plm-spec-rules-*.test.ts): a sheet builder (`family`, `toCsv`) and, per test
 * file, a test stack started in beforeAll with the native mapping plus raw materials, the import run, the write count
 * of the worker's client, and readers of what the sandbox holds.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PlmImportResult } from '../../activities/plm-import';
import { builtinProfile } from '../../connectors/plm-import/profiles/builtin';
import { plmImport } from '../../workflows';
import type { PlmImportInput } from '../../workflows/plm-import';
import { sandboxApi, type TestStack } from '../harness';
import { parseCsv } from '../unit/plm-activities/native-sheet';
import { startJobStack } from './job-stack';

export const HEADER = [
  'externalId',
  'parentExternalId',
  'level',
  'name',
  'styleType',
  'isComponent',
  'description',
  'gender',
  'color',
  'dimension',
  'weight',
  'weightUnit',
  'PLM_ID',
  'composition',
] as const;
export type Row = Partial<Record<(typeof HEADER)[number], string>> & { externalId: string };

const csvField = (value: string): string =>
  /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
export const toCsv = (rows: readonly Row[]): string => toCsvWith(rows, [], {});
/** toCsv with `extra` columns after HEADER, their cells by externalId. */
export const toCsvWith = (
  rows: readonly Row[],
  extra: readonly string[],
  cells: Readonly<Record<string, Readonly<Record<string, string>>>>,
): string =>
  [
    [...HEADER, ...extra].join(','),
    ...rows.map((row) =>
      [
        ...HEADER.map((column) => row[column] ?? ''),
        ...extra.map((column) => cells[row.externalId]?.[column] ?? ''),
      ]
        .map(csvField)
        .join(','),
    ),
  ].join('\r\n') + '\r\n';

/** A style, one colour and one size, every level with its PLM_ID code. */
export function family(
  prefix: string,
  extra: { style?: Partial<Row>; variant?: Partial<Row>; sku?: Partial<Row> } = {},
): Row[] {
  return [
    {
      externalId: prefix,
      level: 'style',
      name: `${prefix} tee`,
      styleType: 'T-shirts',
      isComponent: 'no',
      description: 'Soft organic tee',
      gender: 'Unisex',
      PLM_ID: prefix,
      ...extra.style,
    },
    {
      externalId: `${prefix}-BLK`,
      parentExternalId: prefix,
      level: 'variant',
      name: `${prefix} black`,
      color: 'Black',
      PLM_ID: `${prefix}-BLK`,
      ...extra.variant,
    },
    {
      externalId: `${prefix}-BLK-M`,
      parentExternalId: `${prefix}-BLK`,
      level: 'sku',
      name: `${prefix} black M`,
      dimension: 'M',
      weight: '180',
      weightUnit: 'GRAM',
      PLM_ID: `${prefix}-BLK-M`,
      ...extra.sku,
    },
  ];
}

export interface ApiProduct {
  id: string;
  externalId: string | null;
  isArchived: boolean;
  description: string | null;
  name: string;
  overriddenFlag?: string[] | null;
}

/** Registers the file's beforeAll/afterAll; the returned helpers work inside its tests. `seed`: the sandbox's own. */
export function plmRulesStack(options: { seed?: unknown } = {}) {
  let stack: TestStack | undefined;
  let dir = '';
  let nativeMapping = '';
  const started = (): TestStack => {
    if (!stack) throw new Error('the test stack starts in beforeAll: use it inside a test or hook');
    return stack;
  };

  const file = async (name: string, content: string | Buffer): Promise<string> => {
    const target = path.join(dir, name);
    await writeFile(target, content);
    return target;
  };
  const run = async (input: PlmImportInput): Promise<PlmImportResult> => {
    const { client, taskQueue, workflowId } = started();
    return (
      await client.workflow.start(plmImport, {
        args: [input],
        taskQueue,
        workflowId: workflowId('plm-rules'),
      })
    ).result();
  };
  const snapshot = () => ({ ...started().apiClient.stats().byMethodStatus });
  /** Writes (POST/PUT, product and material endpoints alike) the worker's client sent since `before`. */
  const writesSince = (before: Record<string, number>): number =>
    Object.entries(started().apiClient.stats().byMethodStatus)
      .filter(([key]) => key.startsWith('POST') || key.startsWith('PUT'))
      .reduce((sum, [key, n]) => sum + n - (before[key] ?? 0), 0);
  /** The native profile with more `fields`, as the mapping file `<name>.json`. */
  const nativeMappingWith = (name: string, fields: Record<string, unknown>): Promise<string> => {
    const native = builtinProfile('native');
    if (native.layout !== 'native') throw new Error('the native profile is native');
    return file(
      `${name}.json`,
      JSON.stringify({
        ...native,
        name,
        mapping: { ...native.mapping, fields: { ...native.mapping.fields, ...fields } },
      }),
    );
  };
  const { api } = sandboxApi(started);
  const product = (externalId: string) => api<ApiProduct>(`/styles/${encodeURIComponent(externalId)}`);
  const ownedCompositions = async (externalId: string) => {
    const { id } = await product(externalId);
    const headers = await api<Array<{ id: string; name: string }>>(
      `/material-headers?styleId=${id}&isOwner=true&limit=100`,
    );
    return Promise.all(
      headers.map(async (header) => ({
        id: header.id,
        name: header.name,
        lines: (
          await api<Array<{ id: string; rawMaterialId: string; percentage: number }>>(
            `/material-lines?materialHeaderId=${header.id}&limit=100`,
          )
        )
          .map((line) => ({ id: line.id, rawMaterialId: line.rawMaterialId, percentage: line.percentage }))
          .sort((a, b) => a.rawMaterialId.localeCompare(b.rawMaterialId)),
      })),
    );
  };
  /** Every composition linked to the product (spec 02: "owned and inherited"), with its link's role and root lines. */
  const linkedCompositions = async (externalId: string) => {
    const { id } = await product(externalId);
    const headers = await api<
      Array<{ id: string; name: string; link: { isOwner: boolean; isMainMaterial: boolean } }>
    >(`/material-headers?styleId=${id}&limit=100`);
    return Promise.all(
      headers.map(async (header) => ({
        id: header.id,
        name: header.name,
        isOwner: header.link.isOwner,
        isMainMaterial: header.link.isMainMaterial,
        lines: (
          await api<Array<{ rawMaterialId: string; percentage: number }>>(
            `/material-lines?materialHeaderId=${header.id}&limit=100`,
          )
        )
          .map((line) => `${line.percentage} ${line.rawMaterialId}`)
          .sort(),
      })),
    );
  };
  /** Child links appear asynchronously (spec 02): waits until `externalId` has `count` linked compositions. */
  const settledLinks = async (externalId: string, count: number) => {
    for (let attempt = 0; ; attempt++) {
      const linked = await linkedCompositions(externalId);
      if (linked.length >= count || attempt >= 40) return linked;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const sandboxConfig = (settings: { childLinkDelayMs: number }) =>
    fetch(`${new URL(started().sandbox.baseUrl).origin}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(settings),
    });
  const rejectsOf = (
    result: PlmImportResult,
  ): Array<{ externalId: string; code: string; message: string }> => {
    if (!result.rejectsFile) return [];
    const [header, ...rows] = parseCsv(readFileSync(result.rejectsFile, 'utf8'));
    const at = (name: string) => (header ?? []).indexOf(name);
    return rows
      .filter((cells) => cells.length > 1)
      .map((cells) => ({
        externalId: cells[0] ?? '',
        code: cells[at('error_code')] ?? '',
        message: cells[at('error_message')] ?? '',
      }));
  };

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack(
      'plm-rules-it-',
      options.seed === undefined ? {} : { seed: options.seed },
    ));
    nativeMapping = await file(
      'native-with-materials.json',
      JSON.stringify({
        ...builtinProfile('native'),
        name: 'native-with-materials',
        rawMaterials: {
          Cotton: 'rawmat_cotton',
          Elastane: 'rawmat_elastane',
          Polyamide: 'rawmat_polyamide',
          Polyester: 'rawmat_polyester',
          Wool: 'rawmat_wool',
        },
      }),
    );
  }, 60_000);

  afterAll(() => stack?.stop());

  return {
    stack: started,
    /** The native profile with a `rawMaterials` table (Cotton, Elastane, Polyamide, Polyester, Wool). */
    nativeMapping: () => nativeMapping,
    file,
    nativeMappingWith,
    run,
    snapshot,
    writesSince,
    api,
    product,
    ownedCompositions,
    linkedCompositions,
    settledLinks,
    sandboxConfig,
    rejectsOf,
  };
}

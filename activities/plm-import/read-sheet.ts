import { mkdir } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { copyInput, readInputText } from '../../connectors/storage';
import {
  builtinProfile,
  parseMappingProfile,
  parseProductSheet,
  PlmFileError,
  type MappingProfile,
  type ReferenceLists,
} from '../../connectors/plm-import';
import type { ReferenceKind, TraceabilityClient } from '../../connectors/traceability';
import { boundMessage } from '../../connectors/input-limits';
import type { PlmRun, ReadInput, ReadResult, SheetStage } from './types';

/** A problem with the run's input that no retry can fix (a bad mapping file, both profile and mappingFile...). */
export class PlmInputError extends Error {
  override readonly name = 'PlmInputError';
}

/** The mapping profile of a run: a built-in one by name (default `native`) or a JSON file on the worker. */
export async function resolveProfile(choice: {
  profile?: string | undefined;
  mappingFile?: string | undefined;
}): Promise<{ profile: MappingProfile; name: string }> {
  if (choice.profile !== undefined && choice.mappingFile !== undefined) {
    throw new PlmInputError('give either profile or mappingFile, not both');
  }
  if (choice.mappingFile === undefined) {
    const name = choice.profile ?? 'native';
    return { profile: builtinProfile(name), name };
  }
  let text: string;
  try {
    text = await readInputText(choice.mappingFile); // a worker path or an s3:// reference
  } catch {
    throw new PlmInputError(
      `mapping file ${choice.mappingFile} cannot be read (the path is read on the worker)`,
    );
  }
  try {
    return { profile: parseMappingProfile(JSON.parse(text)), name: choice.mappingFile };
  } catch (error) {
    throw new PlmInputError(`mapping file ${choice.mappingFile}: ${(error as Error).message}`);
  }
}

const REFERENCE_FIELDS = {
  styleTypeId: { list: 'styleTypes', kind: 'styleTypes' },
  brands: { list: 'brands', kind: 'styleProperties:brands' },
  seasons: { list: 'seasons', kind: 'styleProperties:seasons' },
  collections: { list: 'collections', kind: 'styleProperties:collections' },
  departments: { list: 'departments', kind: 'styleProperties:departments' },
} as const satisfies Record<string, { list: keyof ReferenceLists; kind: ReferenceKind }>;

function mappedFieldNames(profile: MappingProfile): Set<string> {
  const mappings =
    profile.layout === 'native' ? [profile.mapping] : [profile.style, profile.variant, profile.sku];
  return new Set(mappings.flatMap((mapping) => Object.keys(mapping.fields)));
}

/** Only the reference lists the profile maps a column to, from the client's cache (all pages, loaded once). */
async function referenceLists(client: TraceabilityClient, profile: MappingProfile): Promise<ReferenceLists> {
  const mapped = mappedFieldNames(profile);
  const lists: ReferenceLists = {};
  await Promise.all(
    Object.entries(REFERENCE_FIELDS)
      .filter(([field]) => mapped.has(field))
      .map(async ([, { list, kind }]) => {
        const index = await client.reference.index(kind);
        lists[list] = index.items.map(({ id, name }) => ({ id, name }));
      }),
  );
  return lists;
}

/**
 * Reads the sheet with its profile and stages the drafts and row issues. The sheet is copied into the run
 * folder first: planning and the rejects file then read the very bytes that were parsed, even if the original
 * is moved (an inbox) or overwritten meanwhile. File errors name the original path.
 */
export async function readSheet(
  input: ReadInput,
  run: PlmRun,
  client: TraceabilityClient,
): Promise<ReadResult> {
  const started = Date.now();
  const { profile, name } = await resolveProfile(input);
  await mkdir(run.path, { recursive: true });
  const sourceCopy = run.file(`source${extname(input.file).toLowerCase()}`);
  // A worker path or an s3:// reference; the copy goes to the run-data store, for a worker that continues the run.
  if (!(await copyInput(input.file, sourceCopy))) {
    throw new PlmFileError(
      'file_not_found',
      `${input.file} does not exist or is not a file (the path is read on the worker).`,
    );
  }
  await run.publish(basename(sourceCopy));

  const before = { ...client.stats().byEndpoint };
  const references = await referenceLists(client, profile);
  const apiCalls = referenceCallsSince(client, before);

  let parsed;
  try {
    parsed = await parseProductSheet(sourceCopy, {
      profile,
      references,
      read: input.sheet !== undefined ? { sheetName: input.sheet } : {},
    });
  } catch (error) {
    if (error instanceof PlmFileError)
      throw new PlmFileError(error.code, error.message.split(sourceCopy).join(input.file));
    throw error;
  }
  const drafts = await run.staging.putNdjson(run.key('drafts.ndjson'), parsed.drafts);
  const issues = await run.staging.putNdjson(run.key('read-issues.ndjson'), parsed.issues);
  const stage: SheetStage = {
    sourceFile: input.file,
    sourceCopy,
    profile,
    profileName: name,
    rowCount: parsed.rowCount,
    skippedRows: parsed.skippedRows,
    warnings: parsed.warnings.map((warning) => warning.split(sourceCopy).join(input.file)),
    fieldColumns: parsed.fieldColumns,
    drafts,
    issues,
  };
  const sheet = await run.staging.putJson(run.key('sheet.json'), stage);
  return {
    runKey: run.runKey,
    sheet,
    rows: parsed.rowCount,
    products: parsed.drafts.length,
    rowIssues: new Set(parsed.issues.map((issue) => issue.rowNumber)).size,
    skippedRows: parsed.skippedRows,
    sheetName: parsed.sheet.sheetName,
    ignoredSheets: parsed.sheet.ignoredSheets,
    profileName: name,
    warnings: stage.warnings.slice(0, 20).map((warning) => boundMessage(warning, 500)),
    apiCalls,
    durationMs: Date.now() - started,
  };
}

/** Calls the client made to the reference lists since `before` (they go through its shared cache). */
export function referenceCallsSince(client: TraceabilityClient, before: Record<string, number>): number {
  const now = client.stats().byEndpoint;
  return Object.keys(now)
    .filter(
      (endpoint) => endpoint.startsWith('GET /style-types') || endpoint.startsWith('GET /style-properties'),
    )
    .reduce((sum, endpoint) => sum + (now[endpoint] ?? 0) - (before[endpoint] ?? 0), 0);
}

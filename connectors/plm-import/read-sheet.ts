import { mkdir } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { boundMessage } from '../input-limits';
import { profileChoiceProblem } from '../profile-choice';
import { copyInput, isS3Url, readInputText } from '../storage';
import { readWhole, type PageFetcher, type ReferenceKind, type TraceabilityClient } from '../traceability';
import { PlmFileError } from './issues';
import { builtinProfile } from './profiles/builtin';
import type { CompanyEntry } from '../companies';
import { parseProductSheet } from './profiles/parse-sheet';
import type { ReferenceLists } from './profiles/references';
import { parseMappingProfile, type MappingProfile } from './profiles/schema';
import { originalRejections } from './retry-scope';
import type { PlmRun, ReadInput, ReadResult, SheetStage } from './staged-run';

/**
 * The PLM import's read step: the run's mapping profile resolved, the sheet copied into the run folder, parsed with
 * that profile (the reference lists it maps looked up) and its drafts and row issues staged for the plan
 * (import-plan.ts). Nothing here writes to the API.
 */

/** A problem with the run's input that no retry can fix (a bad mapping file, both profile and mappingFile...). */
export class PlmInputError extends Error {
  override readonly name = 'PlmInputError';
}

/** The mapping profile of a run: a built-in one by name (default `native`) or a JSON file on the worker. */
export async function resolveProfile(choice: {
  profile?: string | undefined;
  mappingFile?: string | undefined;
}): Promise<{ profile: MappingProfile; name: string }> {
  const both = profileChoiceProblem(choice);
  if (both !== undefined) throw new PlmInputError(both);
  if (choice.mappingFile === undefined) {
    const name = choice.profile ?? 'native';
    return { profile: builtinProfile(name), name };
  }
  let text: string;
  try {
    text = await readInputText(choice.mappingFile); // a worker path or an s3:// reference
  } catch (error) {
    // The reader's own reason (too large, a key twice, not in the bucket...); the hint is for a worker path the
    // file system refused, which an operator may have given from another host.
    const code = (error as NodeJS.ErrnoException).code;
    throw new PlmInputError(
      code === undefined || isS3Url(choice.mappingFile)
        ? `mapping file ${choice.mappingFile}: ${(error as Error).message}`
        : `mapping file ${choice.mappingFile} cannot be read (the path is read on the worker)`,
    );
  }
  try {
    return { profile: parseMappingProfile(JSON.parse(text)), name: choice.mappingFile };
  } catch (error) {
    throw new PlmInputError(`mapping file ${choice.mappingFile}: ${(error as Error).message}`);
  }
}

/** Fields the sheet gives by name and the API holds as ids, with the reference list that maps them. */
export const REFERENCE_FIELDS = {
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

/**
 * Only the reference lists the profile maps a column to, from the client's cache (all pages, loaded once). The
 * style types also give the valid style levels (their parentIds), so a mapped styleLevelId reads them too.
 */
async function referenceLists(client: TraceabilityClient, profile: MappingProfile): Promise<ReferenceLists> {
  const mapped = mappedFieldNames(profile);
  if (mapped.has('styleLevelId')) mapped.add('styleTypeId');
  const lists: ReferenceLists = {};
  await Promise.all(
    Object.entries(REFERENCE_FIELDS)
      .filter(([field]) => mapped.has(field))
      .map(async ([, { list, kind }]) => {
        const index = await client.reference.index(kind);
        lists[list] = index.items.map(({ id, name, parentId }) =>
          parentId === undefined ? { id, name } : { id, name, parentId },
        );
      }),
  );
  return lists;
}

/**
 * Every company the key sees (spec 03, GET /companies: it "maps an external company code to the platform company
 * id"), each once (`readWhole`: the spec gives the list no order, so companies of one name may come in another order
 * on each page; a list still short fails the step rather than call a missed company unknown).
 */
export function readVisibleCompanies(fetchPage: PageFetcher<CompanyEntry>): Promise<CompanyEntry[]> {
  return readWhole('GET /companies', fetchPage);
}

function visibleCompanies(client: TraceabilityClient): Promise<CompanyEntry[]> {
  return readVisibleCompanies((page, limit) => client.companies.list({ page, limit }));
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
      isS3Url(input.file)
        ? `${input.file} was not found in the bucket (a key is read as written, case and all).`
        : `${input.file} does not exist or is not a file (the path is read on the worker).`,
    );
  }
  await run.publish(basename(sourceCopy));

  const before = { ...client.stats().byEndpoint };
  let parsed;
  try {
    parsed = await parseProductSheet(sourceCopy, {
      profile,
      // Read only once the sheet passed the checks it needs no API for: a sheet lacking its key columns fails at
      // once, non-retryable, even while the API is down (an inbox drop goes to failed/, not left in the inbox).
      references: () => referenceLists(client, profile),
      companies: () => visibleCompanies(client),
      read: input.sheet !== undefined ? { sheetName: input.sheet } : {},
    });
  } catch (error) {
    if (error instanceof PlmFileError)
      throw new PlmFileError(error.code, error.message.split(sourceCopy).join(input.file));
    throw error;
  }
  const apiCalls = referenceCallsSince(client, before);
  const retry = input.retryOf === undefined ? undefined : await originalRejections(run, input.retryOf);
  const warnings = parsed.warnings.map((warning) => warning.split(sourceCopy).join(input.file));
  if (retry?.rejected === null)
    warnings.push(
      `run ${input.retryOf ?? ''} left no list of the products it rejected (it predates that list, or its run folder is gone): every product of the rejects file is written as it stands, its carried style and colour cells too`,
    );
  const drafts = await run.staging.putNdjson(run.key('drafts.ndjson'), parsed.drafts);
  const issues = await run.staging.putNdjson(run.key('read-issues.ndjson'), parsed.issues);
  const stage: SheetStage = {
    sourceFile: input.file,
    sourceCopy,
    profile,
    profileName: name,
    rowCount: parsed.rowCount,
    skippedRows: parsed.skippedRows,
    warnings,
    fieldColumns: parsed.fieldColumns,
    drafts,
    issues,
    ...(retry ? { retry } : {}),
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

/** Calls the client made to the reference lists and the companies since `before`. */
function referenceCallsSince(client: TraceabilityClient, before: Record<string, number>): number {
  const now = client.stats().byEndpoint;
  return Object.keys(now)
    .filter(
      (endpoint) =>
        endpoint.startsWith('GET /style-types') ||
        endpoint.startsWith('GET /style-properties') ||
        endpoint === 'GET /companies',
    )
    .reduce((sum, endpoint) => sum + (now[endpoint] ?? 0) - (before[endpoint] ?? 0), 0);
}

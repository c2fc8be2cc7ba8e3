/**
 * PLM spreadsheet import, API-free half: read a sheet, map it with a profile, validate, plan against
 * the catalogue, write the rejects file. The activities call these; nothing here does network I/O.
 */
export { openSheet, detectDelimiter, columnLetter } from './read';
export type { OpenedSheet, ReadOptions, SheetRow, SheetFormat, CellValue, CsvDelimiter } from './read/types';
export {
  parseProductSheet,
  profileColumns,
  type ParsedSheet,
  type ParseOptions,
  type SheetInfo,
} from './parse';
export { mapRows } from './profiles/map-rows';
export { continuationFiller } from './profiles/continuation';
export { builtinProfile, builtinProfiles } from './profiles/builtin';
export {
  parseMappingProfile,
  mappingProfileSchema,
  type MappingProfile,
  type MappingProfileInput,
} from './profiles/schema';
export { referenceListsSchema, type ReferenceLists, type ReferenceEntry } from './profiles/references';
export {
  parseComposition,
  parseLocaleNumber,
  parseDate,
  type MaterialShare,
  type CompositionSection,
} from './profiles/values';
export {
  validateDrafts,
  type ValidatedSheet,
  type ValidDraft,
  type InvalidDraft,
  type ValidateOptions,
} from './validate';
export {
  planImport,
  existingProductSchema,
  parseExistingProducts,
  CatalogueIndex,
  type ImportPlan,
  type CreateStep,
  type UpdateStep,
  type UnchangedStep,
  type InvalidStep,
  type ProductCreateBody,
  type ProductUpdateBody,
  type ExistingProduct,
  type ArchivedStep,
  type CompositionCheck,
  type PlanOptions,
  compositionOps,
  compositionOpSchema,
  currentHeaderSchema,
  currentLineSchema,
  type CompositionOp,
  type CurrentHeader,
  type CurrentLine,
} from './plan';
export {
  writeRejects,
  defaultRejectsPath,
  type RejectsFile,
  type RejectsOptions,
  type RejectReason,
} from './rejects';
export { PlmFileError, rowIssueCodes, type RowIssue, type RowIssueCode, type FileErrorCode } from './issues';
export type { ProductDraft, DraftFields, DraftComposition, MappedSheet, ProductLevel } from './draft';
export { closeMatches, levenshtein, normalizeName } from '../traceability/name-matching';

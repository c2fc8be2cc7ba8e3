export { ApiCalls, type Progress } from './api-calls';
export {
  StagingIntegrityError,
  StagingStore,
  runManifestBaseSchema,
  stagedBatchInputSchema,
  stagedRunInputSchema,
  stagingRefSchema,
  type StagingRef,
} from './store';
export {
  BatchJournal,
  JsonLinesJournal,
  type IntentOf,
  type JournalLine,
  type JournalState,
  type OutcomeOf,
  forEachBounded,
} from './journal';
export {
  legacyRunKeyOf,
  readStoredJson,
  RunFolder,
  runKeyOf,
  storeJson,
  type JournalLayout,
} from './run-folder';
export {
  isOpenRun,
  STAGING_RETENTION_MS,
  stagedRunOf,
  sweepStaging,
  SWEEP_LISTED_PER_PASS,
  type OpenRuns,
  type StagingSweepOptions,
  type StagingSweepResult,
} from './sweep';

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
} from './journal';
export { RunFolder, runKeyOf, type JournalLayout } from './run-folder';
export { forEachBounded } from './lanes';

export { StagingIntegrityError, StagingStore, stagingRefSchema, type StagingRef } from './store';
export { JsonLinesJournal } from './journal';
export { RunFolder, runKeyOf } from './run-folder';
export { forEachBounded } from './lanes';

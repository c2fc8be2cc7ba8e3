export { StagingIntegrityError, StagingStore, stagingRefSchema, type StagingRef } from './store';
export { JsonLinesJournal } from './journal';

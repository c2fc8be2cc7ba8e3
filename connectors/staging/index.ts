export { StagingIntegrityError, StagingStore, stagingRefSchema, type StagingRef } from './store';

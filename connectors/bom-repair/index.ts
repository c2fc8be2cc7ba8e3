export * from './line-fields';
export { matchCopiedLines, type LineMatch } from './matching';
export * from './source-discovery';
export { repairLineBody } from './put-body';
export { waitFor, WaitTimeoutError, type BackoffOptions, type Waited } from './wait';
export { readLines, readHeaders, ownedHeaders, waitForBomLink } from './reads';
export * from './results';
export {
  repairProductBoms,
  verifyRepaired,
  RepairReadCache,
  type RepairCandidate,
  type RepairOptions,
} from './repair';
export { mapForkToSnapshot, type ExactRepair, type SnapshotMapping } from './snapshot-map';
export {
  safeBomWrite,
  type SafeBomEdit,
  type SafeBomWriteInput,
  type SafeBomWriteResult,
} from './safe-write';
export * from './job-input';
export {
  emptyScanReport,
  scanRepairCandidates,
  trustedIncludedHeaders,
  type ScanFilter,
  type ScanReport,
} from './scan';
export { ForkSnapshotStore, snapshotSourceLines, type ForkSnapshot } from './fork-snapshots';
export {
  bomMarkFile,
  CorruptBomMarkError,
  MARK_SAFETY_MS,
  nextBomMark,
  readBomMark,
  storeBomMark,
} from './high-water-mark';

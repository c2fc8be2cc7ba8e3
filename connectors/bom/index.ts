export * from './line-fields';
export { matchCopiedLines, type LineMatch } from './matching';
export * from './source-discovery';
export { repairLineBody } from './put-body';
export { waitFor, WaitTimeoutError, type BackoffOptions, type Waited } from './wait';
export { readLines, readHeaders, includedHeaders, ownedHeaders, waitForBomLink } from './reads';
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
export { scanRepairCandidates, type ScanReport } from './scan';

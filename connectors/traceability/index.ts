export { TraceabilityClient, type TraceabilityClientOptions } from './client';
export {
  TraceabilityApiError,
  ClientErrorCode,
  isTraceabilityApiError,
  refusesKey,
  refusesRecord,
  type HttpMethod,
  type SchemaIssue,
  type TraceabilityApiErrorInit,
} from './errors';
export { systemClock, type Clock } from './clock';
export type { TraceabilityLogger } from './logger';
export type { ClientMetricsSnapshot } from './metrics';
export { AdaptiveRateLimiter, type RateLimiterOptions, type RateLimitObservation } from './rate-limiter';
export { fullJitterBackoffMs, decideRetry, type RetrySafety, type RetryPolicy } from './retry';
export type { Pagination } from './envelope';
export {
  paginate,
  collect,
  readList,
  readWhole,
  IncrementalSync,
  type ListRead,
  type ReadListOptions,
  type Page,
  type PageFetcher,
  type IncrementalCheckpoint,
  type UpdatedWindowFetcher,
  type UpdatedWindowQuery,
} from './pagination';
export {
  ReferenceIndex,
  normalizeName,
  levenshtein,
  closeMatches,
  didYouMean,
  describeLookupFailure,
  type NamedReference,
  type ReferenceLookup,
} from './name-matching';
export { ReferenceCache, type ReferenceKind } from './reference-cache';
export { NaturalKeys, type CompanyCodeMatch } from './natural-keys';
export type { CallOptions } from './resources/base';
export type { UploadInput } from './resources/files';
export * from './schemas/common';
export * from './schemas/products';
export * from './schemas/reference';
export * from './schemas/orders';
export * from './schemas/materials';
export * from './schemas/boms';
export * from './schemas/files';
export * from './schemas/certificates';
export * from './schemas/network';

import { configureStorage } from '../connectors/storage';
import type { TraceabilityClient } from '../connectors/traceability';
import type { ObservedRateLimiter } from '../worker/api-client';
import type { AppConfig } from '../worker/config';
import type { AppLogger } from '../worker/logger';
import { createApprovalActivities } from './approval';
import { createBomRepairActivities } from './bom-repair';
import { createCertificateReportActivities } from './certificate-report';
import { createCheckConnectionActivities } from './check-connection';
import { createErpOrderActivities } from './erp-orders';
import { createPlmImportActivities } from './plm-import';

/** What activities need from the process; tests pass a client pointed at their own sandbox. */
export interface ActivityDeps {
  client: TraceabilityClient;
  /** The client's pacer, which remembers the last rate-limit headers. */
  rateLimits: Pick<ObservedRateLimiter, 'latest'>;
  /** The API base URL the client calls (reported by checks; the key never is). */
  baseUrl: string;
  config: AppConfig;
  logger: AppLogger;
}

/** Every activity of every job, bound to its dependencies (closure style). */
export function createActivities(deps: ActivityDeps) {
  // Run data (staging, journals, rejects, reports) of this worker's data folder goes to TRACE_STORE_URL.
  configureStorage(deps.config.dataDir, deps.config.store ?? {});
  return {
    ...createCheckConnectionActivities(deps),
    ...createCertificateReportActivities(deps),
    ...createErpOrderActivities(deps),
    ...createBomRepairActivities(deps),
    ...createPlmImportActivities(deps),
    ...createApprovalActivities(deps),
  };
}

/** The activity interface workflows proxy (`proxyActivities<Activities>`); import it with `import type`. */
export type Activities = ReturnType<typeof createActivities>;

import { useStagingRetention } from '../connectors/staging/retention';
import { configureStorage } from '../connectors/storage';
import { createBomRepairActivities } from './bom-repair';
import { createCertificateReportActivities } from './certificate-report';
import { createCheckConnectionActivities } from './check-connection';
import type { ActivityDeps } from './deps';
import { createErpOrderActivities } from './erp-orders';
import { createErpPullActivities } from './erp-pull';
import { createInboxActivities } from './inbox';
import { createPlmImportActivities } from './plm-import';

export type { ActivityDeps } from './deps';

/** Every activity of every job, bound to its dependencies (closure style). */
export function createActivities(deps: ActivityDeps) {
  // Run data (staging, journals, rejects, reports) of this worker's data folder goes to TRACE_STORE_URL.
  configureStorage(deps.config.dataDir, deps.config.store ?? {});
  useStagingRetention(deps.config.stagingRetentionDays, !deps.config.store?.url?.startsWith('s3://'));
  return {
    ...createCheckConnectionActivities(deps),
    ...createCertificateReportActivities(deps),
    ...createErpOrderActivities(deps),
    ...createErpPullActivities(deps),
    ...createInboxActivities(),
    ...createBomRepairActivities(deps),
    ...createPlmImportActivities(deps),
  };
}

/** The activity interface workflows proxy (`proxyActivities<Activities>`); import it with `import type`. */
export type Activities = ReturnType<typeof createActivities>;

// Every workflow the worker registers; one module per job.
export { checkConnection } from './check-connection';
export { certificateExpiryReport } from './certificate-report';
export { repairBomForks } from './bom-repair';
export { pushErpOrders } from './erp-orders';
export { pullPlatformOrders } from './erp-pull';
export { processInbox } from './inbox';
export { importPlmSpreadsheet } from './plm-import';

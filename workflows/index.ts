// Every workflow the worker registers; one module per job, each exported under its job's name.
export { bomRepair } from './bom-repair';
export { certificateReport } from './certificate-report';
export { checkConnection } from './check-connection';
export { erpOrders } from './erp-orders';
export { erpPull } from './erp-pull';
export { inbox } from './inbox';
export { plmImport } from './plm-import';

// The workflow types the jobs had before each job got one name. Schedules, running workflows and histories that
// name them keep working: the worker registers each job under both names.
export { bomRepair as repairBomForks } from './bom-repair';
export { certificateReport as certificateExpiryReport } from './certificate-report';
export { erpOrders as pushErpOrders } from './erp-orders';
export { erpPull as pullPlatformOrders } from './erp-pull';
export { inbox as processInbox } from './inbox';
export { plmImport as importPlmSpreadsheet } from './plm-import';

// Every workflow the worker registers; one module per job.
export { checkConnection } from './check-connection';
export { certificateExpiryReport } from './certificate-report';

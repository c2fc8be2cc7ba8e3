import type { LogLevel as TemporalLogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { FAILURE_TYPE_ATTRIBUTE } from '../workflows/log-interceptors';
import { compactError, type AppLogger, type CompactError } from './logger';

const LEVELS: Record<TemporalLogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The SDK's lines at info that tell an operator nothing the worker's own lines ("Worker running", "Shutting down",
 * "Stopped") do not: logged at debug. A worker that fails still says so at its level.
 */
function isSdkChatter(message: string, meta: LogMetadata | undefined): boolean {
  if (message === 'No Nexus services registered, not polling for Nexus tasks') return true;
  return message === 'Worker state changed' && meta?.state !== 'FAILED';
}

/**
 * A workflow's failure with the type the workflow gave it (workflows/log-interceptors.ts sends it beside the error,
 * which lost it in the structured clone out of the workflow sandbox), unless the error still has its own.
 */
function withFailureType(err: CompactError, failureType: unknown): CompactError {
  if (typeof failureType !== 'string' || failureType === '' || err.type.includes('(')) return err;
  return { ...err, type: `${err.type}(${failureType})` };
}

/**
 * Sends the SDK's logs (workflow `log`, activity `log`, worker and core messages) through pino. The SDK
 * puts workflowId, runId, activityId, taskQueue... in the metadata, so each line carries them.
 */
export function temporalLoggerFor(logger: AppLogger): TemporalLogger {
  const log = (level: TemporalLogLevel, message: string, meta?: LogMetadata): void => {
    const fields: Record<string, unknown> = { ...meta };
    // An opaque credential-like blob that says nothing to a reader; the ids beside it identify the task.
    delete fields.taskToken;
    // A failed workflow or activity: its message, a short stack and its causes' messages, not the SDK's
    // encoded failure with every frame (kilobytes per line).
    // (Not instanceof Object: a workflow's error comes from the workflow sandbox's realm.)
    if (typeof fields.error === 'object' && fields.error !== null) {
      fields.err = withFailureType(compactError(fields.error), fields[FAILURE_TYPE_ATTRIBUTE]);
      delete fields.error;
    }
    delete fields[FAILURE_TYPE_ATTRIBUTE];
    const pinoLevel = level === 'INFO' && isSdkChatter(message, meta) ? 'debug' : (LEVELS[level] ?? 'info');
    logger[pinoLevel](fields, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/**
 * Installs the Temporal runtime with pino as its logger, once per process (later calls are no-ops).
 * With `metricsAddress` the SDK serves its worker metrics (task slots, poll and schedule-to-start latencies,
 * activity failures...) in Prometheus format on that address. Signals are left to the caller, which shuts
 * the worker down in order.
 */
export function installTemporalRuntime(logger: AppLogger, options: { metricsAddress?: string } = {}): void {
  if (Runtime._instance) return;
  try {
    installRuntime(logger, options.metricsAddress);
  } catch (error) {
    // (The SDK's message names neither the address nor where it came from.)
    if (!options.metricsAddress || !/prometheus/i.test(String(error))) throw error;
    throw new Error(
      `TRACE_METRICS_ADDRESS ${options.metricsAddress}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function installRuntime(logger: AppLogger, metricsAddress: string | undefined): void {
  Runtime.install({
    logger: temporalLoggerFor(logger),
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(metricsAddress
        ? { metrics: { prometheus: { bindAddress: metricsAddress }, metricPrefix: 'temporal_' } }
        : {}),
    },
  });
}

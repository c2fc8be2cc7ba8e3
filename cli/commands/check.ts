import { Command, InvalidArgumentError } from 'commander';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { loadConfig, temporalClientAddress } from '../../worker/config';
import { TraceJob, TraceSource } from '../../worker/search-attributes';
import { checkConnection } from '../../workflows';
import { runAction } from '../run-action';

function seconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) === 0)
    throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

/** `check-connection-2025-01-31T08-15-00-123Z`: says what it is and when it was asked. */
export function checkWorkflowId(now = new Date()): string {
  return `check-connection-${now.toISOString().replace(/[:.]/g, '-')}`;
}

export function checkCommand(): Command {
  return new Command('check')
    .description('Start the checkConnection workflow: can the workers reach the API with their key?')
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', seconds, 60)
    .action((flags: { wait?: boolean; timeout: number }) =>
      runAction(async () => {
        const config = loadConfig();
        const address = temporalClientAddress(config);
        const connection = await Connection.connect({ address, connectTimeout: 5000 }).catch(
          (error: unknown) => {
            throw new Error(
              `Cannot reach Temporal at ${address} (${(error as Error).message}): run \`npm start\`, or set TEMPORAL_ADDRESS`,
            );
          },
        );
        try {
          const client = new Client({ connection, namespace: config.temporalNamespace });
          const handle = await client.workflow.start(checkConnection, {
            taskQueue: config.taskQueue,
            workflowId: checkWorkflowId(),
            typedSearchAttributes: [
              { key: TraceJob, value: 'check-connection' },
              { key: TraceSource, value: 'api' },
            ],
            staticSummary: 'Check the API connection: style types and rate-limit headers',
          });
          process.stdout.write(`Started workflow ${handle.workflowId} on task queue ${config.taskQueue}\n`);
          if (!config.temporalAddress && config.temporalUiPort !== 0) {
            const ns = encodeURIComponent(config.temporalNamespace);
            const id = encodeURIComponent(handle.workflowId);
            process.stdout.write(
              `Web UI: http://127.0.0.1:${config.temporalUiPort}/namespaces/${ns}/workflows/${id}\n`,
            );
          }
          if (!flags.wait) return;
          const result = await Promise.race([
            handle.result(),
            new Promise<never>((_, reject) =>
              setTimeout(
                () =>
                  reject(
                    new Error(
                      `No result after ${flags.timeout}s: is a worker polling task queue ${config.taskQueue}? (\`npm start\` runs one)`,
                    ),
                  ),
                flags.timeout * 1000,
              ).unref(),
            ),
          ]).catch((error: unknown) => {
            if (error instanceof WorkflowFailedError) {
              throw new Error(
                `Workflow ${handle.workflowId} failed: ${error.cause?.message ?? error.message}`,
              );
            }
            throw error;
          });
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        } finally {
          await connection.close();
        }
      }),
    );
}

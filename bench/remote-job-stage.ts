// What the benchmarks of a job against an API far away share: a counting sandbox (`startCountingSandbox`), one
// client built as the worker builds it, the worker's configuration over a temporary data folder, and an activity
// environment to run the job's activities in as the workflow drives them; all stopped and removed afterwards.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { TraceabilityClient } from '../connectors/traceability';
import type { SandboxOptions } from '../sandbox/options';
import { SANDBOX_API_KEY } from '../worker/api-target';
import { loadConfig, type AppConfig } from '../worker/config';
import { startCountingSandbox, type CountingSandbox } from './counting-sandbox';

export interface RemoteJobStage {
  sandbox: CountingSandbox;
  client: TraceabilityClient;
  /** The temporary data folder (`TRACE_DATA_DIR`). */
  dir: string;
  config: AppConfig;
  env: MockActivityEnvironment;
}

/** Runs `bench` on a fresh stage (`name` names its data folder) and tears the stage down whatever it does. */
export async function withRemoteJobStage<T>(
  name: string,
  sandboxOptions: Omit<SandboxOptions, 'port'>,
  bench: (stage: RemoteJobStage) => Promise<T>,
): Promise<T> {
  const sandbox = await startCountingSandbox(sandboxOptions);
  const client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: SANDBOX_API_KEY });
  let dir: string | undefined;
  try {
    dir = await mkdtemp(path.join(tmpdir(), `bench-${name}-`));
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });
    return await bench({ sandbox, client, dir, config: loadConfig({ TRACE_DATA_DIR: dir }), env });
  } finally {
    await client.close();
    await sandbox.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

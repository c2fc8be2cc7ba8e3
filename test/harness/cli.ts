import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../worker/paths';
import { readHarnessInfo } from './harness-info';
import type { TestStack } from './stack';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The environment a `trace-sync` child needs to start jobs on this stack's dev server and task queue. */
export function cliEnv(
  stack: Pick<TestStack, 'taskQueue' | 'config'>,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  const harness = readHarnessInfo();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: harness.address,
    TEMPORAL_NAMESPACE: harness.namespace,
    TRACE_TASK_QUEUE: stack.taskQueue,
    TRACE_DATA_DIR: stack.config.dataDir,
  };
  // The child talks to Temporal only; an API target from the developer's shell must not make its config invalid.
  delete env.TRACEABILITY_BASE_URL;
  delete env.TRACEABILITY_API_KEY;
  return { ...env, ...extra };
}

/**
 * Runs `trace-sync <args>` as a child process, asynchronously on purpose: the test process hosts the worker that must
 * run the workflow the CLI starts. The child is SIGKILLed (by its pid) after `killAfterMs`.
 */
export function traceSync(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  killAfterMs = 120_000,
): Promise<CliRun> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), ...args], {
      env,
      cwd: repoRoot(),
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The result `--wait` prints: stdout is that one JSON document alone (progress and notes are on stderr). */
export function waitResult<T>(stdout: string): T {
  return JSON.parse(stdout) as T;
}

/** The error and warning lines (`trace-sync: …`) of a command's stderr, where its progress and notes also go. */
export function cliProblems(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('trace-sync:'));
}

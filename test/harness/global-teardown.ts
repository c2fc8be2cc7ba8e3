import { readFileSync, rmSync } from 'node:fs';
import { HARNESS_FILE_ENV, harnessInfoSchema } from './harness-info';

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Stops the run's dev server (gracefully, by its pid as a fallback) and removes the temp folder. */
export default async function globalTeardown(): Promise<void> {
  const harness = globalThis.__traceHarness;
  if (harness) {
    await harness.server.stop();
    rmSync(harness.tempDir, { recursive: true, force: true });
    globalThis.__traceHarness = undefined;
    return;
  }
  // Set-up and tear-down ran in different module scopes: fall back to the published pid.
  const file = process.env[HARNESS_FILE_ENV];
  if (!file) return;
  const info = harnessInfoSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  if (signalGroup(info.serverPid, 'SIGTERM')) {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && signalGroup(info.serverPid, 0)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    signalGroup(info.serverPid, 'SIGKILL');
  }
  rmSync(info.tempDir, { recursive: true, force: true });
}

import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../worker/paths';

/** Root of all test-run logs; `.ci/run` greps it for API keys. Override with TRACE_TEST_LOG_DIR. */
export function testLogRoot(): string {
  return path.resolve(process.env.TRACE_TEST_LOG_DIR ?? path.join(repoRoot(), '.data', 'test-logs'));
}

const KEEP_DAYS = 3;

/** A fresh folder for one run (runs from other terminals may write beside it); old runs are pruned. */
export function createRunLogDir(now = new Date()): string {
  const root = testLogRoot();
  mkdirSync(root, { recursive: true });
  for (const name of readdirSync(root)) {
    const dir = path.join(root, name);
    if (name.startsWith('run-') && now.getTime() - statSync(dir).mtimeMs > KEEP_DAYS * 86_400_000) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const dir = path.join(root, `run-${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

import { workflowsPath } from './create-worker';
import { defaultWorkflowBundleDir, writeWorkflowBundle } from './workflow-bundle';

/** `npm run build`'s last step: dist/workflow-bundle, which a worker started from dist/ uses while it is current. */
async function main(): Promise<void> {
  const started = Date.now();
  const { codePath, modules } = await writeWorkflowBundle({
    workflowsPath: workflowsPath(),
    dir: defaultWorkflowBundleDir(),
  });
  process.stderr.write(`Workflow bundle: ${codePath} (${modules} modules, ${Date.now() - started} ms)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`Cannot write the workflow bundle: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});

import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workflowBundleFor } from '../../../worker/create-worker';
import { createLogger } from '../../../worker/logger';
import {
  checkWorkflowBundle,
  workflowInterceptorModules,
  writeWorkflowBundle,
} from '../../../worker/workflow-bundle';

/** The worker's start with a bundle `npm run build` wrote: used while current, else bundled at start as before. */
describe('the prebuilt workflow bundle', () => {
  let dir: string;
  let workflows: string;
  let bundleDir: string;
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    format: 'json',
    destination: { write: (line: string) => lines.push(line) },
  });
  const start = () => workflowBundleFor({ workflowsPath: workflows, dir: bundleDir, logger });
  const logged = () => lines.map((line) => JSON.parse(line) as { msg: string; reason?: string });

  beforeAll(async () => {
    // A small workflows file of its own keeps each bundling to a second or two.
    dir = await mkdtemp(path.join(tmpdir(), 'workflow-bundle-'));
    await symlink(path.join(__dirname, '..', '..', '..', 'node_modules'), path.join(dir, 'node_modules'));
    workflows = path.join(dir, 'workflows.js');
    bundleDir = path.join(dir, 'dist', 'workflow-bundle');
    await writeFile(workflows, "exports.greet = async () => 'hello';\n");
    await writeWorkflowBundle({ workflowsPath: workflows, dir: bundleDir });
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    lines.length = 0;
  });

  it('a current bundle is used as built: nothing is bundled, nothing is logged', async () => {
    expect(await start()).toEqual({ codePath: path.join(bundleDir, 'workflows.js') });
    expect(logged()).toEqual([]);
  });

  it('after a workflow file changed, the bundle is not used: one line names the file, the workflows are bundled', async () => {
    await writeFile(workflows, "exports.greet = async () => 'hello';\nexports.part = async () => 'bye';\n");
    const bundle = await start();
    expect(bundle).toEqual({ code: expect.stringContaining("'bye'") as unknown });
    expect(logged()).toEqual([
      expect.objectContaining({
        msg: 'Bundling the workflows at start: the prebuilt bundle is not current',
        reason: `${workflows} changed since the build`,
      }),
    ]);
  }, 60_000);

  it('a bundle built before a workflow interceptor module was added is not current, naming the interceptors', async () => {
    const older = path.join(dir, 'dist', 'older-bundle');
    await writeWorkflowBundle({ workflowsPath: workflows, dir: older, interceptorModules: [] });
    const checked = await checkWorkflowBundle(older, workflows);
    expect(checked).toMatchObject({
      current: false,
      reason: expect.stringMatching(
        /^bundled with workflow interceptors \[\], this worker runs \[.*log-interceptors/,
      ),
    });
    expect(workflowInterceptorModules().length).toBeGreaterThan(0);
    expect(await checkWorkflowBundle(older, workflows, [])).toMatchObject({ current: true });
  }, 60_000);

  it('without a bundle (a checkout never built), the workflows are bundled at start, saying why', async () => {
    const bundle = await workflowBundleFor({ workflowsPath: workflows, dir: path.join(dir, 'none'), logger });
    expect(bundle).toHaveProperty('code');
    expect(logged()).toEqual([
      expect.objectContaining({ reason: `no prebuilt bundle in ${path.join(dir, 'none')}` }),
    ]);
  }, 60_000);
});

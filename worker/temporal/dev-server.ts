import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { AppLogger } from '../logger';
import { searchAttributeCliArgs } from '../search-attributes';
import { resolvePort } from './ports';
import { tail } from './run-command';

export interface DevServerOptions {
  /** The Temporal CLI binary (see provisionTemporalCli). */
  cliPath: string;
  /** The SQLite file goes to `<dataDir>/temporal/temporal.db`. */
  dataDir: string;
  logger: AppLogger;
  ip?: string;
  /** gRPC port; 0 picks a free one. */
  port?: number;
  /** Web UI port; 0 picks a free one. */
  uiPort?: number;
  namespace?: string;
  /** Server log level (`--log-level`). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** More flags for `temporal server start-dev`, such as `--dynamic-config-value K=V`. */
  extraArgs?: readonly string[];
  /** Where the server's own output goes; `<dataDir>/temporal/server.log` by default. */
  logFile?: string;
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
}

export interface RunningDevServer {
  /** gRPC `host:port`, what TEMPORAL_ADDRESS would hold. */
  address: string;
  namespace: string;
  port: number;
  uiPort: number;
  uiUrl: string;
  pid: number;
  dbFile: string;
  logFile: string;
  stop(): Promise<void>;
}

export class DevServerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevServerStartError';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return ''; // Not Linux, or no such process.
  }
}

/** The live `trace-sync start` that owns the server `pid`, if any (Linux only: read from /proc). */
function owningStart(pid: number): number | undefined {
  // The command name in `stat` is in parentheses and may hold spaces: the parent pid is the 2nd field after it.
  const stat = readProc(pid, 'stat');
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  if (!Number.isInteger(ppid) || ppid <= 1 || !isAlive(ppid)) return undefined;
  const args = readProc(ppid, 'cmdline').split('\0');
  return args.some((arg) => arg.endsWith('trace-sync.cjs') || arg.endsWith('trace-sync')) &&
    args.includes('start')
    ? ppid
    : undefined;
}

/** Refuses to share a SQLite file with a live server; forgets the pid file of a dead one. */
function checkPidFile(pidFile: string, dbFile: string, dataDir: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const cmdline = readProc(pid, 'cmdline');
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && (cmdline === '' || cmdline.includes(dbFile))) {
    const start = owningStart(pid);
    // Killing the server of a running stack would pull Temporal from under its worker: name the stack instead.
    throw new DevServerStartError(
      start === undefined
        ? `A Temporal dev server (pid ${pid}) is already running on ${dbFile}; stop it first (kill ${pid})`
        : `Trace Connectors is already running on ${dataDir} (trace-sync start, pid ${start}): use it, ` +
            `or stop it with Ctrl-C in its terminal (or kill ${start}); ` +
            'to run a second stack, set TRACE_DATA_DIR to another folder',
    );
  }
  rmSync(pidFile, { force: true });
}

/** Signals the server's whole process group (it was started detached, as its leader). */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone.
    }
  }
}

async function waitUntilReady(
  address: string,
  namespace: string,
  uiUrl: string,
  deadline: number,
  exited: () => boolean,
): Promise<void> {
  let lastError: unknown;
  while (Date.now() < deadline && !exited()) {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 2000 });
      await connection.workflowService.describeNamespace({ namespace });
      const ui = await fetch(uiUrl, { signal: AbortSignal.timeout(2000) });
      if (ui.ok) return;
      lastError = new Error(`Web UI answered ${ui.status}`);
    } catch (error) {
      lastError = error;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(250);
  }
  throw new DevServerStartError(
    exited()
      ? 'the server exited during start'
      : `not ready in time (${String((lastError as Error)?.message ?? lastError)})`,
  );
}

/** Starts `temporal server start-dev` with the project's search attributes and waits until it serves. */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const { logger } = options;
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const port = await resolvePort(options.port ?? 7233, 'Temporal gRPC', ip);
  const uiPort = await resolvePort(options.uiPort ?? 8233, 'Temporal Web UI', ip);
  const temporalDir = path.join(options.dataDir, 'temporal');
  mkdirSync(temporalDir, { recursive: true });
  const dbFile = path.join(temporalDir, 'temporal.db');
  const pidFile = path.join(temporalDir, 'server.pid');
  const logFile = options.logFile ?? path.join(temporalDir, 'server.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
  checkPidFile(pidFile, dbFile, options.dataDir);

  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    ip,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--ui-disable-news-fetch',
    '--namespace',
    namespace,
    '--log-level',
    options.logLevel ?? 'warn',
    ...searchAttributeCliArgs(),
    ...(options.extraArgs ?? []),
  ];
  // Detached: the server gets its own process group, so a Ctrl-C in the terminal reaches this process
  // only, and the server is stopped after the worker that uses it, not before.
  const child: ChildProcess = spawn(options.cliPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) {
    throw new DevServerStartError(`could not run ${options.cliPath}`);
  }
  writeFileSync(pidFile, String(pid));

  const log: WriteStream = createWriteStream(logFile, { flags: 'a' });
  let outputTail = '';
  const capture = (chunk: Buffer) => {
    log.write(chunk);
    outputTail = (outputTail + chunk.toString()).slice(-16 * 1024);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);

  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, sig) => {
      exited = true;
      logger.debug({ serverPid: pid, code, signal: sig }, 'Temporal dev server exited');
      resolve();
    });
  });
  // Last resort if this process ends without stop(): never leave the server behind.
  const killOnExit = () => signal(pid, 'SIGKILL');
  process.on('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exited) {
        signal(pid, 'SIGTERM');
        const graceful = await Promise.race([
          exitedPromise.then(() => true),
          sleep(options.stopGraceMs ?? 10_000).then(() => false),
        ]);
        if (!graceful) {
          logger.warn({ serverPid: pid }, 'Temporal dev server ignored SIGTERM; killing it');
          signal(pid, 'SIGKILL');
          await exitedPromise;
        }
      }
      process.removeListener('exit', killOnExit);
      rmSync(pidFile, { force: true });
      await new Promise<void>((resolve) => log.end(resolve));
    })();
    return stopping;
  };

  const address = `${ip}:${port}`;
  const uiUrl = `http://${ip}:${uiPort}`;
  try {
    await waitUntilReady(
      address,
      namespace,
      uiUrl,
      Date.now() + (options.readyTimeoutMs ?? 60_000),
      () => exited,
    );
  } catch (error) {
    await stop();
    throw new DevServerStartError(
      `Temporal dev server (${options.cliPath}) did not start: ${(error as Error).message}\n` +
        `--- server output (tail) ---\n${tail(outputTail)}`,
    );
  }
  logger.info({ serverPid: pid, address, uiUrl, namespace, dbFile }, 'Temporal dev server ready');
  return { address, namespace, port, uiPort, uiUrl, pid, dbFile, logFile, stop };
}

import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunCommandOptions {
  timeoutMs: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kills the command when aborted (Ctrl-C during a long install). */
  signal?: AbortSignal;
}

const MAX_CAPTURE = 64 * 1024;

/** Runs a command to completion (killed after timeoutMs) and captures the tail of its output. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let child;
    try {
      child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ code: null, signal: null, stdout: '', stderr: String(error), timedOut: false });
      return;
    }
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-MAX_CAPTURE);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-MAX_CAPTURE);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    const abort = () => child.kill('SIGTERM');
    options.signal?.addEventListener('abort', abort, { once: true });
    const cleanUp = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    };
    child.once('error', (error) => {
      cleanUp();
      resolve({ code: null, signal: null, stdout, stderr: stderr + String(error), timedOut });
    });
    child.once('close', (code, signal) => {
      cleanUp();
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Last lines of a text, for error messages. */
export function tail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

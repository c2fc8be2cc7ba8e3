/** The worker-thread side of `runOffThread`: loads the module, runs the function, posts its result back in slices. */
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';

const dataSchema = z.object({
  modulePath: z.string(),
  fn: z.string(),
  args: z.array(z.unknown()),
  rowsPerMessage: z.number().int().positive(),
});

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const { modulePath, fn, args, rowsPerMessage } = dataSchema.parse(workerData);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(modulePath) as Record<string, unknown>;
    const target = loaded[fn];
    if (typeof target !== 'function') throw new Error(`${modulePath} has no function ${fn}`);
    const value: unknown = await (target as (...input: unknown[]) => unknown)(...args);
    if (typeof value === 'object' && value !== null && Array.isArray((value as { rows?: unknown }).rows)) {
      const { rows, ...rest } = value as { rows: unknown[] };
      port.postMessage({ kind: 'head', value: rest });
      // One slice at a time, each after the main thread has taken the last: it then decodes one slice per turn of its
      // event loop instead of a backlog of them in one go.
      for (let start = 0; start < rows.length; start += rowsPerMessage) {
        port.postMessage({ kind: 'rows', rows: rows.slice(start, start + rowsPerMessage) });
        await new Promise((resolve) => port.once('message', resolve));
      }
      port.postMessage({ kind: 'done' });
    } else {
      port.postMessage({ kind: 'value', value });
    }
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    const code = (failure as { code?: unknown }).code;
    port.postMessage({
      kind: 'error',
      error: { name: failure.name, message: failure.message, ...(typeof code === 'string' ? { code } : {}) },
    });
  }
}

void main();

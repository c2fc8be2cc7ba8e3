import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LocalStore, type ObjectStore } from '../connectors/storage';
import { SetupError } from './config';

/**
 * `mkdir -p`, one folder at a time: Node 20's recursive mkdir spins for ever where a parent answers ENOENT for any
 * child (a folder under /proc), so the check would hang the start it guards.
 */
async function makeFolder(folder: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(folder); !existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const dir of missing) {
    try {
      await mkdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * A data folder that cannot be written (a file in its path, read-only, full disk) would fail every job later, one
 * by one, or stop the dev server with a bare `ENOTDIR`; the stack and the worker say it once at start instead.
 */
export async function checkFolderWritable(folder: string, variable: string): Promise<void> {
  const probe = path.join(folder, `.write-check-${process.pid}`);
  try {
    await makeFolder(folder);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // `ENOTDIR: not a directory, mkdir '/x/y'`: the reason without the syscall and path repeated.
    const reason = code ? `${code}: ${message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}` : message;
    throw new SetupError(
      `the data folder ${folder} (${variable}) cannot be written (${reason}): ` +
        `make it a writable folder, or set ${variable} to one`,
    );
  }
}

/** The run-data store's folder when it is local (a bucket store is checked by its own `check()`). */
export async function checkStoreWritable(store: ObjectStore, storeUrlSet: boolean): Promise<void> {
  if (store instanceof LocalStore)
    await checkFolderWritable(store.root, storeUrlSet ? 'TRACE_STORE_URL' : 'TRACE_DATA_DIR');
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import { extname, join, parse } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';

export const INBOX_DONE_FOLDERS = ['processed', 'failed'] as const;
export type InboxDestination = (typeof INBOX_DONE_FOLDERS)[number];

/** At most this many files per inbox run; the next run takes the rest. */
export const MAX_FILES_PER_RUN = 100;

export interface InboxFile {
  name: string;
  path: string;
  sha256: string;
  bytes: number;
}

export interface MovedFile {
  /** Where the file is now; null when it was not moved (gone, or replaced by other content meanwhile). */
  movedTo: string | null;
  note?: string;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Hidden files, editor locks and files still being copied in are not picked up. */
function ignored(name: string): boolean {
  return name.startsWith('.') || name.startsWith('~$') || /\.(tmp|part|crdownload|partial)$/i.test(name);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export function createInboxActivities() {
  return {
    /** The inbox's files (not its sub-folders), oldest name first, each with its content hash. */
    async listInboxFiles(input: { folder: string }): Promise<InboxFile[]> {
      let names: string[];
      try {
        names = await readdir(input.folder);
      } catch (error) {
        throw ApplicationFailure.nonRetryable(
          `cannot read the inbox folder ${input.folder}: ${(error as Error).message}`,
          'InboxFolderError',
        );
      }
      const files: InboxFile[] = [];
      for (const name of names.filter((n) => !ignored(n)).sort()) {
        if (files.length >= MAX_FILES_PER_RUN) break;
        const path = join(input.folder, name);
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) continue;
        files.push({ name, path, sha256: await sha256Of(path), bytes: info.size });
      }
      return files;
    },

    /**
     * Moves a handled file into `processed/` or `failed/` beside it. Safe to repeat: a file already moved is found
     * there; a name taken by other content gets the hash in its name; a file whose content changed since it was
     * listed stays (it is a new file for the next run).
     */
    async moveInboxFile(input: { file: InboxFile; to: InboxDestination }): Promise<MovedFile> {
      const { file } = input;
      const folder = join(file.path, '..', input.to);
      const target = join(folder, file.name);
      const { name: stem } = parse(file.name);
      const hashed = join(folder, `${stem}-${file.sha256.slice(0, 12)}${extname(file.name)}`);
      if (!(await exists(file.path))) {
        for (const candidate of [target, hashed]) {
          if ((await exists(candidate)) && (await sha256Of(candidate)) === file.sha256)
            return { movedTo: candidate, note: 'already moved' };
        }
        return { movedTo: null, note: 'the file is no longer in the inbox' };
      }
      if ((await sha256Of(file.path)) !== file.sha256)
        return { movedTo: null, note: 'the file changed since it was listed; the next run takes it' };
      await mkdir(folder, { recursive: true });
      const destination = (await exists(target)) ? hashed : target;
      await rename(file.path, destination);
      return { movedTo: destination };
    },
  };
}

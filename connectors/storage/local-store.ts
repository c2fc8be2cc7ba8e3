import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { checkKey, type ListedObject, type ObjectStore, type StoreBody } from './object-store';

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Writes a file through a temporary name and a rename, so a crash never leaves half of it (readers see all or none). */
export async function writeFileAtomically(path: string, body: StoreBody): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomUUID()}.tmp`;
  let out: WriteStream | undefined;
  try {
    if (typeof body === 'string' || Buffer.isBuffer(body)) await writeFile(temp, body);
    else {
      out = createWriteStream(temp);
      await pipeline(body instanceof Readable ? body : Readable.from(body), out);
    }
    await rename(temp, path);
  } finally {
    // A source that fails at once can reject the pipeline before the file has even been opened; the stream
    // opens and closes it after that, so removing it before then left the temporary file behind.
    if (out && !out.closed) await once(out, 'close').catch(() => undefined);
    await rm(temp, { force: true });
  }
}

/** The embedded default: a folder on the worker's disk. Writes go through a temporary name and a rename. */
export class LocalStore implements ObjectStore {
  readonly kind = 'local' as const;

  constructor(readonly root: string) {}

  get url(): string {
    return pathToFileURL(this.root).href;
  }

  pathOf(key: string): string {
    return join(this.root, ...checkKey(key).split('/'));
  }

  async put(key: string, body: StoreBody): Promise<void> {
    await writeFileAtomically(this.pathOf(key), body);
  }

  async putIfAbsent(key: string, body: string | Buffer): Promise<boolean> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.${randomUUID()}.tmp`;
    await writeFile(temp, body);
    try {
      // link() fails when the target exists: the whole content appears at once, or not at all.
      await link(temp, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await rm(temp, { force: true });
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
  }

  async read(key: string): Promise<Readable | null> {
    const path = this.pathOf(key);
    if (!(await this.exists(key))) return null;
    return createReadStream(path);
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch {
      return false;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const slash = prefix.lastIndexOf('/');
    const folder = slash < 0 ? '' : prefix.slice(0, slash);
    const start = folder === '' ? this.root : this.pathOf(folder);
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (missing(error)) return;
        throw error;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.isFile() && !entry.name.endsWith('.tmp')) {
          const key = relative(this.root, path).split(sep).join('/');
          if (key.startsWith(prefix)) keys.push(key);
        }
      }
    };
    await walk(start);
    return keys.sort();
  }

  async *pagesUnder(prefix: string, startAfter?: string): AsyncGenerator<ListedObject[]> {
    let page: ListedObject[] = [];
    for await (const object of this.walkInKeyOrder(prefix, startAfter)) {
      page.push(object);
      if (page.length >= 1000) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  /** Files under `prefix` in S3's key order: a folder sorts as its name followed by `/`. */
  private async *walkInKeyOrder(
    prefix: string,
    startAfter: string | undefined,
  ): AsyncGenerator<ListedObject> {
    const slash = prefix.lastIndexOf('/');
    const root = this.root;
    const pathOf = (key: string) => this.pathOf(key);
    async function* walk(folder: string): AsyncGenerator<ListedObject> {
      let entries;
      try {
        entries = await readdir(folder === '' ? root : pathOf(folder), { withFileTypes: true });
      } catch (error) {
        if (missing(error)) return;
        throw error;
      }
      const named = entries
        .filter((entry) => entry.isDirectory() || (entry.isFile() && !entry.name.endsWith('.tmp')))
        .map((entry) => {
          const key = folder === '' ? entry.name : `${folder}/${entry.name}`;
          return { key, folder: entry.isDirectory(), order: entry.isDirectory() ? `${key}/` : key };
        })
        .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
      for (const entry of named) {
        if (entry.folder) {
          const inside = entry.order;
          if (!inside.startsWith(prefix) && !prefix.startsWith(inside)) continue;
          // Every key inside sorts before the cursor: the folder was listed in an earlier pass.
          if (startAfter !== undefined && startAfter >= inside && !startAfter.startsWith(inside)) continue;
          yield* walk(entry.key);
          continue;
        }
        if (!entry.key.startsWith(prefix) || (startAfter !== undefined && entry.key <= startAfter)) continue;
        try {
          const info = await stat(pathOf(entry.key));
          yield {
            key: entry.key,
            bytes: info.size,
            version: `${info.mtimeMs}-${info.size}`,
            lastModifiedMs: info.mtimeMs,
          };
        } catch (error) {
          if (!missing(error)) throw error;
        }
      }
    }
    yield* walk(slash < 0 ? '' : prefix.slice(0, slash));
  }

  async remove(key: string): Promise<void> {
    if (await this.exists(key)) await rm(this.pathOf(key), { force: true });
  }

  async removeFolder(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix.replace(/\/+$/, '')), { recursive: true, force: true });
  }

  async copy(from: string, to: string): Promise<boolean> {
    return this.download(from, this.pathOf(to));
  }

  async upload(key: string, localPath: string): Promise<void> {
    const target = this.pathOf(key);
    if (target === localPath) return;
    await this.put(key, createReadStream(localPath));
  }

  async download(key: string, localPath: string): Promise<boolean> {
    const source = this.pathOf(key);
    if (source === localPath) return this.exists(key);
    if (!(await this.exists(key))) return false;
    await writeFileAtomically(localPath, createReadStream(source));
    return true;
  }

  urlOf(key: string): string {
    return pathToFileURL(this.pathOf(key)).href;
  }

  async presign(key: string): Promise<string> {
    return this.urlOf(key);
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }
}

import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';

/**
 * Append-only JSON-lines journal of a batch's writes (an intent before each write, its outcome after), read by a
 * retried attempt to skip settled work and to recognise a write that was under way when the worker died.
 * A line cut short by a crash mid-write is ignored: the record it concerned is simply done again.
 */
export class JsonLinesJournal<T> {
  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
  ) {}

  async append(entry: T): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    // One write per line in append mode: lines of concurrent writes never interleave.
    await appendFile(this.path, `${JSON.stringify(entry)}\n`, 'utf8');
  }

  /** Journals are small (two lines per record at most), so they are read whole. */
  async entries(): Promise<T[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return [];
    }
    const entries: T[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const parsed = this.schema.safeParse(JSON.parse(line));
        if (parsed.success) entries.push(parsed.data);
      } catch {
        // torn line: see the class comment
      }
    }
    return entries;
  }

  /** After a crash mid-line, the next entry must start on a line of its own. */
  async closeTornLine(): Promise<void> {
    try {
      const text = await readFile(this.path, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) await appendFile(this.path, '\n', 'utf8');
    } catch {
      // no journal yet
    }
  }
}

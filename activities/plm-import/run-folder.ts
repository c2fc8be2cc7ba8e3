import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { JsonLinesJournal, RunFolder } from '../../connectors/staging';
import { journalEntrySchema, type JournalEntry, type Outcome } from './types';

/**
 * Everything a PLM import run keeps lives in `<dataDir>/runs/<runKey>/`: a copy of the sheet, the staged drafts,
 * issues and batches (`staging/`), one journal per batch (`journal/`), plan.json, rejects.<ext> and result.json.
 */
export class PlmRunFolder extends RunFolder {
  constructor(dataDir: string, runKey: string) {
    super(dataDir, runKey, ['staging']);
  }

  journal(batch: number): BatchJournal {
    return new BatchJournal(this.file('journal', `batch-${String(batch).padStart(5, '0')}.ndjson`));
  }

  /** Final outcome of every product the batches settled, the last entry per product winning. */
  async outcomes(beforeBatch = Number.POSITIVE_INFINITY): Promise<Outcome[]> {
    let names: string[];
    try {
      names = (await JsonLinesJournal.namesIn(this.file('journal'))).filter((name) => /^batch-\d+\.ndjson$/.test(name)).sort();
    } catch {
      return [];
    }
    const latest = new Map<string, Outcome>();
    for (const name of names) {
      if (Number(name.slice(6, 11)) >= beforeBatch) continue;
      const { done } = await new BatchJournal(this.file('journal', name)).state();
      // A composition outcome (spec 02) sits beside its product's outcome, never over it.
      for (const [externalId, outcome] of done) latest.set(`${outcome.target ?? 'product'}\u0000${externalId}`, outcome);
    }
    return [...latest.values()];
  }
}

/** Writes a file through a temporary name and a rename, so a crash never leaves half of it. */
export async function writeFileAtomically(path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, content);
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * The journal of one batch. A retried attempt reads it to skip products already settled and to recognise a create
 * that was under way when the previous attempt died (an `intent` with no `outcome` after it).
 */
export class BatchJournal extends JsonLinesJournal<JournalEntry> {
  constructor(path: string) {
    super(path, journalEntrySchema);
  }

  /** Settled products, and products whose write was under way when an earlier attempt stopped. */
  async state(): Promise<{ done: Map<string, Outcome>; pending: Map<string, 'create' | 'update'> }> {
    const done = new Map<string, Outcome>();
    const pending = new Map<string, 'create' | 'update'>();
    for (const entry of await this.entries()) {
      if (entry.kind === 'intent') {
        pending.set(entry.externalId, entry.write);
        done.delete(entry.externalId);
      } else {
        done.set(entry.externalId, entry);
        pending.delete(entry.externalId);
      }
    }
    return { done, pending };
  }
}

import { JsonLinesJournal, RunFolder } from '../../connectors/staging';
import { outcomeEntrySchema, outcomeKey, type OrderOutcome, type OutcomeEntry } from './types';

/**
 * Everything a push run keeps lives in `<dataDir>/runs/<runKey>/`: the staged batches and manifest, a copy of the
 * export, one outcome log per batch, the rejects file and result.json.
 */
export class OrderRunFolder extends RunFolder {
  /** Outcome log of batch `n` (`read` for the orders refused while reading the export). */
  outcomeLog(batch: number | 'read'): OutcomeLog {
    const name = batch === 'read' ? 'read.ndjson' : `batch-${String(batch).padStart(5, '0')}.ndjson`;
    return new OutcomeLog(this.file('outcomes', name));
  }

  /** Every final outcome of the run, from all logs, the last one per order (number and type) winning. */
  async allOutcomes(): Promise<OrderOutcome[]> {
    let names: string[];
    try {
      names = (await JsonLinesJournal.namesIn(this.file('outcomes'))).filter((name) => name.endsWith('.ndjson')).sort();
    } catch {
      return [];
    }
    const outcomes: OrderOutcome[] = [];
    for (const name of names) {
      const latest = new Map<string, OrderOutcome>();
      for (const entry of await new OutcomeLog(this.file('outcomes', name)).entries()) {
        if (entry.kind === 'outcome')
          // Orders refused while reading carry no type: their rows tell them apart.
          latest.set(entry.orderType === undefined ? `row:${entry.rows.join(',')}` : outcomeKey(entry), entry);
      }
      outcomes.push(...latest.values());
    }
    return outcomes;
  }
}

/**
 * Append-only NDJSON journal of one batch. A retried attempt reads it to skip orders already done and to recognise
 * a write that was under way when the previous attempt died (an `intent` with no `outcome` after it).
 */
export class OutcomeLog extends JsonLinesJournal<OutcomeEntry> {
  constructor(path: string) {
    super(path, outcomeEntrySchema);
  }

  /** Checked before it is written: an entry the reader would skip as invalid must fail here, not vanish from the counts. */
  override async append(entry: OutcomeEntry): Promise<void> {
    await super.append(outcomeEntrySchema.parse(entry));
  }

  /** What a previous attempt left: final outcomes by `outcomeKey`, and orders with a write under way. */
  async resumeState(): Promise<{
    done: Map<string, OrderOutcome>;
    pending: Map<string, PendingWrite>;
  }> {
    await this.closeTornLine();
    const done = new Map<string, OrderOutcome>();
    const pending = new Map<string, PendingWrite>();
    for (const entry of await this.entries()) {
      const key = outcomeKey(entry);
      if (entry.kind === 'intent') pending.set(key, { write: entry.write, ...(entry.lines ? { lines: entry.lines } : {}) });
      else {
        done.set(key, entry);
        pending.delete(key);
      }
    }
    return { done, pending };
  }
}

/** A write journalled by an attempt that died before its outcome, with what it was to do to the lines. */
export interface PendingWrite {
  write: 'create' | 'patch';
  lines?: { created: number; updated: number; deleted: number };
}

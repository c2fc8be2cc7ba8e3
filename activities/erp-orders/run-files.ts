import { JsonLinesJournal, RunFolder } from '../../connectors/staging';
import { outcomeEntrySchema, type OrderOutcome, type OutcomeEntry } from './types';

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

  /** Every final outcome of the run, from all logs, the last one per order number winning. */
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
          latest.set(entry.orderNumber === '' ? `row:${entry.rows.join(',')}` : entry.orderNumber, entry);
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

  /** What a previous attempt left: final outcomes by order number, and orders with a write under way. */
  async resumeState(): Promise<{
    done: Map<string, OrderOutcome>;
    pending: Map<string, 'create' | 'patch'>;
  }> {
    await this.closeTornLine();
    const done = new Map<string, OrderOutcome>();
    const pending = new Map<string, 'create' | 'patch'>();
    for (const entry of await this.entries()) {
      if (entry.kind === 'intent') pending.set(entry.orderNumber, entry.write);
      else {
        done.set(entry.orderNumber, entry);
        pending.delete(entry.orderNumber);
      }
    }
    return { done, pending };
  }
}

import type { Page, TraceabilityClient } from '../../connectors/traceability';

/**
 * Counts the API requests one activity makes. The client's own counters are shared by every activity of the worker,
 * so a job that reports "API calls spent" counts its own (transport-level retries of one request are not included).
 */
export class ApiCallCounter {
  calls = 0;

  constructor(readonly client: TraceabilityClient) {}

  async one<T>(call: () => Promise<T>): Promise<T> {
    this.calls += 1;
    return call();
  }

  /** Every item of a paged list (limit 100), counting each page; `first` is reused when already fetched. */
  async all<T>(fetchPage: (page: number, limit: number) => Promise<Page<T>>, first?: Page<T>): Promise<T[]> {
    const items: T[] = [];
    let page = first ?? (await this.one(() => fetchPage(1, 100)));
    for (let number = 1; ; number++) {
      items.push(...page.items);
      if (page.items.length === 0 || number >= page.pagination.totalPages) return items;
      page = await this.one(() => fetchPage(number + 1, 100));
    }
  }
}

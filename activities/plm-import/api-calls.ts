import type { Page, TraceabilityClient } from '../../connectors/traceability';

/**
 * Counts the API requests one activity asks for. The client's own counters are shared by every activity of the
 * worker, so a run that reports "API calls spent" counts its own (transport retries of one request not included).
 */
export class ApiCalls {
  count = 0;

  constructor(readonly client: TraceabilityClient) {}

  one<T>(call: () => Promise<T>): Promise<T> {
    this.count += 1;
    return call();
  }

  /** Pages 2..totalPages of a list whose first page is already read, `lanes` at a time (the client paces them). */
  async remainingPages<T>(
    first: Page<T>,
    fetchPage: (page: number) => Promise<Page<T>>,
    onPage: (items: readonly T[]) => void,
    lanes = 4,
  ): Promise<void> {
    const total = first.pagination.totalPages;
    let next = 2;
    const lane = async (): Promise<void> => {
      while (next <= total) {
        const page = next++;
        const result = await this.one(() => fetchPage(page));
        onPage(result.items);
      }
    };
    await Promise.all(Array.from({ length: Math.min(lanes, Math.max(0, total - 1)) }, lane));
  }
}

/** Calls the client made to the reference lists since `before` (they go through its shared cache). */
export function referenceCallsSince(client: TraceabilityClient, before: Record<string, number>): number {
  const now = client.stats().byEndpoint;
  return Object.keys(now)
    .filter((endpoint) => endpoint.startsWith('GET /style-types') || endpoint.startsWith('GET /style-properties'))
    .reduce((sum, endpoint) => sum + (now[endpoint] ?? 0) - (before[endpoint] ?? 0), 0);
}

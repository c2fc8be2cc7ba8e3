import {
  isTraceabilityApiError,
  readWhole,
  type Page,
  type PageFetcher,
  type TraceabilityClient,
} from '../traceability';
import { forEachBounded } from './journal';

/** Progress details a job reports while it works (the latest is heartbeated). */
export type Progress = (details: Record<string, unknown>) => void;

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

  /** One read; a 404 (not there) gives undefined. */
  async found<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.one(call);
    } catch (error) {
      if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  /**
   * The width of this activity's lanes: `base`, or more where the key's allowance over the client's round trips
   * keeps more calls in flight (`TraceabilityClient.lanes`), read as the work goes.
   */
  lanes(base: number): () => number {
    return () => this.client.lanes(base);
  }

  /** Pages 2..totalPages of a list whose first page is already read, `lanes` at a time (the client paces them). */
  async remainingPages<T>(
    first: Page<T>,
    fetchPage: (page: number) => Promise<Page<T>>,
    onPage: (items: readonly T[]) => void,
    lanes = 4,
  ): Promise<void> {
    const pages = Array.from(
      { length: Math.max(0, first.pagination.totalPages - 1) },
      (_, index) => index + 2,
    );
    await forEachBounded(pages, this.lanes(lanes), async (page) =>
      onPage((await this.one(() => fetchPage(page))).items),
    );
  }

  /** Every record of a paged list, each once by id, its calls counted: {@link readWhole}. */
  all<T extends { id: string }>(endpoint: string, fetchPage: PageFetcher<T>, first?: Page<T>): Promise<T[]> {
    return readWhole(endpoint, (page, limit) => this.one(() => fetchPage(page, limit)), first);
  }
}

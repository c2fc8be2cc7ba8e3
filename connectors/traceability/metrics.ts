/** Counters a job or benchmark reads to report the API calls it spent. */
export interface ClientMetricsSnapshot {
  /** Every HTTP exchange sent to the API (retries included, signed-URL uploads excluded). */
  calls: number;
  /** Keyed `METHOD STATUS`, e.g. `GET 200`, `POST 429`, `PUT 0` (0 = no answer). */
  byMethodStatus: Record<string, number>;
  /** Keyed by endpoint template, e.g. `GET /styles/{id}`. */
  byEndpoint: Record<string, number>;
  rateLimited: number;
  retries: number;
  networkErrors: number;
  timeouts: number;
  /** Time spent waiting for the pacer, summed over calls. */
  pacingWaitMs: number;
}

export class ClientMetrics {
  private data: ClientMetricsSnapshot = ClientMetrics.empty();

  private static empty(): ClientMetricsSnapshot {
    return {
      calls: 0,
      byMethodStatus: {},
      byEndpoint: {},
      rateLimited: 0,
      retries: 0,
      networkErrors: 0,
      timeouts: 0,
      pacingWaitMs: 0,
    };
  }

  recordCall(method: string, endpoint: string, status: number): void {
    this.data.calls++;
    const key = `${method} ${status}`;
    this.data.byMethodStatus[key] = (this.data.byMethodStatus[key] ?? 0) + 1;
    this.data.byEndpoint[endpoint] = (this.data.byEndpoint[endpoint] ?? 0) + 1;
    if (status === 429) this.data.rateLimited++;
  }

  recordRetry(): void {
    this.data.retries++;
  }

  recordFault(kind: 'network' | 'timeout'): void {
    if (kind === 'network') this.data.networkErrors++;
    else this.data.timeouts++;
  }

  recordPacingWait(ms: number): void {
    this.data.pacingWaitMs += ms;
  }

  snapshot(): ClientMetricsSnapshot {
    return structuredClone(this.data);
  }

  reset(): void {
    this.data = ClientMetrics.empty();
  }
}

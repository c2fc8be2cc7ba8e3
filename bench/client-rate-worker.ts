// One benchmark worker process: a TraceabilityClient that spends its share of calls on one key.
import { TraceabilityClient } from '../connectors/traceability';

interface Go {
  type: 'go';
  baseUrl: string;
  apiKey: string;
  requests: number;
}

async function run(message: Go): Promise<void> {
  const client = new TraceabilityClient({ baseUrl: message.baseUrl, apiKey: message.apiKey, maxConcurrency: 4 });
  let next = 0;
  let firstStart = Number.POSITIVE_INFINITY;
  let lastEnd = 0;
  const worker = async (): Promise<void> => {
    while (next < message.requests) {
      const i = next++;
      firstStart = Math.min(firstStart, Date.now());
      // A mix of cheap reads, as a sync job does.
      if (i % 3 === 0) await client.styleTypes.list({ limit: 5 });
      else if (i % 3 === 1) await client.products.list({ limit: 5 });
      else await client.orders.list({ limit: 5 });
      lastEnd = Date.now();
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const stats = client.stats();
  await client.close();
  process.send?.({ type: 'done', firstStart, lastEnd, stats });
}

process.on('message', (message: Go) => {
  if (message.type === 'go') {
    run(message).catch((error: unknown) => {
      process.send?.({ type: 'error', error: String(error) });
      process.exitCode = 1;
    });
  }
});
process.send?.({ type: 'ready' });

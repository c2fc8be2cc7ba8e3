import { collect, type TraceabilityClient } from '../../connectors/traceability';
import { shiftedClock, systemClock } from '../../connectors/traceability/clock';
import { seededRandom } from '../../sandbox/core/prng';
import { caught } from '../harness/errors';
import { sandboxForFile, unique } from '../harness/sandbox-client';

const h = sandboxForFile();
afterEach(async () => {
  await h.control('DELETE', '/__sandbox/faults');
  await h.control('PUT', '/__sandbox/config', { rateLimitPerMinute: 6_000 });
  await h.control('POST', '/__sandbox/reset');
});

async function burn(client: TraceabilityClient, calls: number): Promise<void> {
  await Promise.all(Array.from({ length: calls }, () => client.styleTypes.list({ limit: 1 })));
}

describe('rate limits, faults and dropped connections against the sandbox', () => {
  it('under a small allowance spends the room the window has, spread out, with no 429', async () => {
    await h.control('PUT', '/__sandbox/config', { rateLimitPerMinute: 60 });
    const client = h.newClient({ maxConcurrency: 4 });
    const started = Date.now();
    await burn(client, 12);
    // 12 calls fit in an empty window of 60: spread at about 2 a second (the window's pace, plus one)
    // they take some 6 s. Spacing every call from the last at 95% (the old pacer) took over 11 s.
    expect(Date.now() - started).toBeGreaterThan(4_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(client.stats().rateLimited).toBe(0);
  }, 30_000);

  it("reads X-RateLimit-Reset ('Unix time in seconds', the server's) on a worker clock 3 s behind it, through Date", async () => {
    await h.control('PUT', '/__sandbox/config', { rateLimitPerMinute: 60 });
    // A worker on another host whose clock is 3 s behind the sandbox's.
    const clock = shiftedClock(systemClock, -3_000);
    const client = h.newClient({ maxConcurrency: 4, clock });
    const started = Date.now();
    await burn(client, 12);
    expect(Math.abs(client.rateLimiter.serverTimeMs(clock.now()) - Date.now())).toBeLessThan(600);
    // Read on the worker's clock unconverted, Reset was 3 s further off and the window's first calls
    // waited for it: the same pace as on a clock that agrees.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(client.stats().rateLimited).toBe(0);
  }, 30_000);

  it('hands a long Retry-After back when another process exhausted the allowance', async () => {
    await h.control('PUT', '/__sandbox/config', { rateLimitPerMinute: 20 });
    // Another process of the same key, not paced by this client, takes the whole window.
    for (let i = 0; i < 20; i++)
      await fetch(`${h.baseUrl}/style-types`, { headers: { companyapikey: 'sandbox-key-brand' } });
    const client = h.newClient();
    const error = await caught(client.styleTypes.list({}));
    // The window frees in ~60 s: beyond the default inline limit (30 s), so the activity gets the delay.
    expect(error).toMatchObject({ statusCode: 429, code: 'too_many_requests', retryable: true, attempts: 1 });
    expect(error.retryAfterMs).toBeGreaterThan(30_000);
  });

  it('waits out short Retry-After answers and then succeeds', async () => {
    await h.control('PUT', '/__sandbox/faults', { burst429: 2 });
    const client = h.newClient();
    const started = Date.now();
    const page = await client.styleTypes.list({ limit: 1 });
    expect(page.items).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(client.stats()).toMatchObject({ rateLimited: 2, retries: 2, calls: 3 });
  });

  it('recovers from injected 5xx on reads', async () => {
    await h.control('PUT', '/__sandbox/faults', { serverErrorRate: 0.5, seed: 7 });
    const client = h.newClient({ maxRetries: 8 });
    const styles = await collect(client.products.iterate({ level: 'sku' }));
    expect(styles.length).toBeGreaterThan(0);
    expect(client.stats().byMethodStatus['GET 500']).toBeGreaterThan(0);
    expect(client.stats().retries).toBeGreaterThan(0);
  });

  it('retries idempotent writes through dropped connections; the write lands once', async () => {
    await h.control('PUT', '/__sandbox/faults', {
      dropAfterCommitRate: 1,
      methods: ['PUT'],
      pathPrefix: '/styles',
      seed: 1,
    });
    const client = h.newClient({ maxRetries: 2 });
    const description = unique('desc');
    const error = await caught(client.products.update('PLM-TEE-001', { description }));
    expect(error).toMatchObject({
      code: 'network_error',
      attempts: 3,
      retryable: true,
      maybeCommitted: true,
    });
    await h.control('DELETE', '/__sandbox/faults');
    expect((await client.products.get('PLM-TEE-001')).description).toBe(description);
  });

  it('a call the API never answers in time says which host and what to check, never the key', async () => {
    await h.control('PUT', '/__sandbox/faults', { latencyMs: 1_000 });
    const client = h.newClient({ timeoutMs: 200, maxRetries: 1 });
    const error = await caught(client.styleTypes.list({}));
    const host = new URL(h.baseUrl).host;
    expect(error).toMatchObject({ code: 'timeout', attempts: 2 });
    expect(error.message).toBe(
      `GET /style-types: no answer within 200 ms; the API at ${host} did not answer in time: ` +
        'check that the API is up (TRACE_API_TIMEOUT_MS sets the wait)',
    );
    expect(error.message).not.toContain('sandbox-key-brand');
  });

  it('does not retry a BOM line create whose answer was lost', async () => {
    const client = h.newClient();
    const linesBefore = (await collect(client.boms.iterateLines({ bomHeaderId: 'bomhdr_demo_storm_shell' })))
      .length;
    await h.control('PUT', '/__sandbox/faults', {
      dropAfterCommitRate: 1,
      methods: ['POST'],
      pathPrefix: '/bom-lines',
    });
    const error = await caught(
      client.boms.createLine({
        bomHeaderId: 'bomhdr_demo_storm_shell',
        entity: { styleId: 'PLM-JKT-010' },
        component: { styleId: 'CMP-ZIP-60' },
        quantity: 1,
        quantityUnit: 'PIECES',
      }),
    );
    expect(error).toMatchObject({ attempts: 1, maybeCommitted: true, retryable: true });
    await h.control('DELETE', '/__sandbox/faults');
    const linesAfter = await collect(client.boms.iterateLines({ bomHeaderId: 'bomhdr_demo_storm_shell' }));
    expect(linesAfter).toHaveLength(linesBefore + 1);
  });

  // Spec 02, POST /material-headers/delete: "per-id failures go into `errors` without failing the request". A retry
  // after the first attempt committed meets the ids that attempt deleted as failures; the answer says so.
  it('a header delete retried after its answer was lost says an earlier attempt may have committed', async () => {
    const client = h.newClient();
    const header = await client.materials.createHeader({
      name: unique('Shell'),
      link: { styleId: 'PLM-TEE-001', isMainMaterial: false },
    });
    let seed = 1;
    for (let roll = seededRandom(seed); !(roll() < 0.5 && roll() >= 0.5); roll = seededRandom(++seed));
    await h.control('PUT', '/__sandbox/faults', {
      dropAfterCommitRate: 0.5,
      methods: ['POST'],
      pathPrefix: '/material-headers/delete',
      seed,
    });
    const answer = await client.materials.deleteHeaders({
      styleId: 'PLM-TEE-001',
      materialHeaderIds: [header.id],
    });
    expect(answer).toMatchObject({
      earlierAttemptMayHaveCommitted: true,
      errors: [expect.objectContaining({ code: 'material_header_not_found' })],
    });
    await h.control('DELETE', '/__sandbox/faults');
    const left = await collect(client.materials.iterateHeaders({ styleId: 'PLM-TEE-001' }));
    expect(left.map((h) => h.id)).not.toContain(header.id);
    const plain = await client.materials.deleteHeaders({
      styleId: 'PLM-TEE-001',
      materialHeaderIds: [header.id],
    });
    expect(plain.earlierAttemptMayHaveCommitted).toBe(false);
  });
});

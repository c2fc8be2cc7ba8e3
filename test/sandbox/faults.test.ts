import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxClient, type SandboxClient } from '../../sandbox/core/http-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';

let sandbox: RunningSandbox;
let brand: SandboxClient;
let control: SandboxClient;
let serial = 0;

const styleBody = (externalId: string) => ({
  name: 'Fault test',
  externalId,
  codes: [{ codeId: 'ERP_ID', codeValue: externalId }],
  styleTypeId: 'st_tshirts',
  isComponent: false,
});
const nextExternalId = () => `fault-${process.pid}-${++serial}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100_000, qrDelayMs: 0 });
  brand = sandboxClient(sandbox.baseUrl, 'sandbox-key-brand');
  control = sandboxClient(sandbox.url);
});

afterEach(async () => {
  await control.request('DELETE', '/__sandbox/faults');
});

afterAll(async () => {
  await sandbox.close();
});

describe('fault injection', () => {
  it('rule: serverErrorRate answers that share of matching requests with 500, before the handler runs', async () => {
    await control.put('/__sandbox/faults', { serverErrorRate: 0.5, seed: 7, pathPrefix: '/styles' });
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await brand.get('/styles?limit=1')).status);
    const failures = statuses.filter((status) => status === 500).length;
    expect(failures).toBeGreaterThan(60);
    expect(failures).toBeLessThan(140);
    expect(statuses.every((status) => status === 200 || status === 500)).toBe(true);
    // Outside the prefix nothing fails.
    for (let i = 0; i < 20; i++) expect((await brand.get('/style-types')).status).toBe(200);
  });

  it('rule: an injected 500 uses the error envelope and commits nothing', async () => {
    await control.put('/__sandbox/faults', { serverErrorRate: 1, methods: ['POST'] });
    const externalId = nextExternalId();
    const response = await brand.post('/styles', styleBody(externalId));
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({
      metadata: { success: false },
      statusCode: 500,
      code: 'internal_server_error',
    });
    await control.request('DELETE', '/__sandbox/faults');
    expect((await brand.get(`/styles/${externalId}`)).status).toBe(404);
  });

  it('rule: latencyMs delays matching answers', async () => {
    await control.put('/__sandbox/faults', { latencyMs: 250 });
    const started = Date.now();
    expect((await brand.get('/styles?limit=1')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('rule: a connection dropped after commit leaves the write committed', async () => {
    await control.put('/__sandbox/faults', { dropAfterCommitRate: 1, methods: ['POST'] });
    const externalId = nextExternalId();
    await expect(brand.post('/styles', styleBody(externalId))).rejects.toThrow();
    await control.request('DELETE', '/__sandbox/faults');
    const read = await brand.get(`/styles/${externalId}`);
    expect(read.status).toBe(200);
    const dropped = await control.get('/__sandbox/faults');
    expect(
      (dropped.body as unknown as { counters: { dropped: number } }).counters.dropped,
    ).toBeGreaterThanOrEqual(1);
  });

  it('rule: reads are never dropped, only POST/PUT/PATCH/DELETE', async () => {
    await control.put('/__sandbox/faults', { dropAfterCommitRate: 1 });
    expect((await brand.get('/styles?limit=1')).status).toBe(200);
  });

  it('rule: burst429 answers the next N requests 429 too_many_requests with Retry-After and rate headers', async () => {
    await control.put('/__sandbox/faults', { burst429: 3 });
    for (let i = 0; i < 3; i++) {
      const response = await brand.get('/styles?limit=1');
      expect(response.status).toBe(429);
      expect(response.body.code).toBe('too_many_requests');
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('x-ratelimit-limit')).toBe('100000');
    }
    expect((await brand.get('/styles?limit=1')).status).toBe(200);
  });

  it('rule: faults can be set from the start through the options', async () => {
    const faulty = await startSandbox({ port: 0, faults: { burst429: 1 } });
    try {
      const client = sandboxClient(faulty.baseUrl, 'sandbox-key-brand');
      expect((await client.get('/style-types')).status).toBe(429);
      expect((await client.get('/style-types')).status).toBe(200);
    } finally {
      await faulty.close();
    }
  });
});

describe('control endpoints', () => {
  it('rule: GET /__sandbox/state dumps every domain, including new records', async () => {
    const externalId = nextExternalId();
    await brand.post('/styles', styleBody(externalId));
    const state = (await control.get('/__sandbox/state')).body as unknown as {
      catalogue: { products: Array<{ externalId: string | null }> };
      files: unknown[];
    };
    expect(state.catalogue.products.some((product) => product.externalId === externalId)).toBe(true);
    expect(Array.isArray(state.files)).toBe(true);
  });

  it('rule: GET /__sandbox/stats counts API answers by status', async () => {
    const before = (await control.get('/__sandbox/stats')).body as unknown as {
      byStatus: Record<string, number>;
    };
    await brand.get('/styles/style_not_there');
    const after = (await control.get('/__sandbox/stats')).body as unknown as {
      byStatus: Record<string, number>;
    };
    expect(after.byStatus['404']).toBe((before.byStatus['404'] ?? 0) + 1);
  });

  it('rule: POST /__sandbox/reset restores the seed and clears faults', async () => {
    const externalId = nextExternalId();
    await brand.post('/styles', styleBody(externalId));
    await control.put('/__sandbox/faults', { latencyMs: 5 });
    await control.post('/__sandbox/reset');
    expect((await brand.get(`/styles/${externalId}`)).status).toBe(404);
    expect((await brand.get('/styles/PLM-TEE-001')).status).toBe(200);
    const faults = (await control.get('/__sandbox/faults')).body as unknown as {
      config: { latencyMs: number };
    };
    expect(faults.config.latencyMs).toBe(0);
  });

  it('rule: a snapshot file keeps the state across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-snapshot-'));
    const snapshotFile = join(dir, 'state.json');
    try {
      const first = await startSandbox({ port: 0, snapshotFile, qrDelayMs: 60_000 });
      const client = sandboxClient(first.baseUrl, 'sandbox-key-brand');
      const externalId = nextExternalId();
      const created = (await client.post('/styles', styleBody(externalId))).body.data as { id: string };
      const file = (await client.post('/files', { filename: 'a.png', fileType: 'image/png', fileSize: 3 }))
        .body.data as { id: string };
      await first.close();

      const second = await startSandbox({ port: 0, snapshotFile, qrDelayMs: 0 });
      try {
        const again = sandboxClient(second.baseUrl, 'sandbox-key-brand');
        await new Promise((resolve) => setTimeout(resolve, 20));
        const read = await again.get(`/styles/${externalId}`);
        expect(read.body.data).toMatchObject({ id: created.id });
        // The QR code pending at shutdown is generated after the restart.
        expect((read.body.data as { qrCodeUrl: string | null }).qrCodeUrl).not.toBeNull();
        const state = (await sandboxClient(second.url).get('/__sandbox/state')).body as unknown as {
          files: Array<{ id: string }>;
        };
        expect(state.files.map((entry) => entry.id)).toContain(file.id);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

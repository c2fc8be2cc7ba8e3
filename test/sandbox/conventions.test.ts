import { sandboxClient, type SandboxClient, type SandboxResponse } from '../../sandbox/core/http-client';
import { RollingRateLimiter } from '../../sandbox/core/rate-limit';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';

type Item = { id: string; name: string; createdAt: string; updatedAt: string };

const RATE_LIMIT = 100_000;
let sandbox: RunningSandbox;
let supplier: SandboxClient;
let control: SandboxClient;
const created: Item[] = [];

const items = (response: SandboxResponse): Item[] => response.body.data as Item[];

function expectError(response: SandboxResponse, statusCode: number, code: string): void {
  expect(response.body).toMatchObject({
    metadata: { success: false },
    statusCode,
    code,
    message: expect.any(String),
  });
  expect(response.status).toBe(statusCode);
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitPerMinute: RATE_LIMIT });
  supplier = sandboxClient(sandbox.baseUrl, 'sandbox-key-supplier');
  control = sandboxClient(sandbox.url);
  // The supplier's catalogue starts empty: 45 styles give three pages of 20.
  for (let i = 0; i < 45; i++) {
    const response = await supplier.post('/styles', {
      name: `Conventions ${String(i).padStart(2, '0')}`,
      codes: [{ codeId: 'ERP_ID', codeValue: `conv-${i}` }],
      styleTypeId: 'st_tshirts',
      isComponent: i % 2 === 0,
    });
    created.push(response.body.data as Item);
  }
});

afterAll(async () => {
  await sandbox.close();
});

describe('envelope', () => {
  it('rule: a success has metadata.success true and data', async () => {
    const response = await supplier.get(`/styles/${created[0]?.id}`);
    expect(response.body).toMatchObject({ metadata: { success: true }, data: { id: created[0]?.id } });
  });

  it('rule: a list adds metadata.pagination with page, limit, total and totalPages', async () => {
    const response = await supplier.get('/styles');
    expect(response.body.metadata).toEqual({
      success: true,
      pagination: { page: 1, limit: 20, total: 45, totalPages: 3 },
    });
  });

  it('rule: an error has metadata.success false, statusCode, code and message', async () => {
    expectError(await supplier.get('/styles/style_does_not_exist'), 404, 'not_found');
  });

  it('rule: a malformed JSON body is a 400 in the error envelope', async () => {
    const response = await fetch(`${sandbox.baseUrl}/styles`, {
      method: 'POST',
      headers: { companyapikey: 'sandbox-key-supplier', 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      metadata: { success: false },
      statusCode: 400,
      code: 'validation_error',
    });
  });
});

describe('pagination and sorting', () => {
  it('rule: page is 1-based and iterating to totalPages returns every record once', async () => {
    const seen: string[] = [];
    let page = 1;
    let totalPages = 1;
    do {
      const response = await supplier.get(`/styles?page=${page}`);
      seen.push(...items(response).map((item) => item.id));
      totalPages = response.body.metadata.pagination?.totalPages ?? 0;
      page++;
    } while (page <= totalPages);
    expect(seen).toHaveLength(45);
    expect(new Set(seen).size).toBe(45);
  });

  it('rule: limit defaults to 20 and is capped at 100', async () => {
    expect(items(await supplier.get('/styles'))).toHaveLength(20);
    const capped = await supplier.get('/styles?limit=500');
    expect(capped.body.metadata.pagination?.limit).toBe(100);
    expect(items(capped)).toHaveLength(45);
  });

  it('rule: a page past the end is an empty 200; page 0 or limit 0 is 400', async () => {
    const past = await supplier.get('/styles?page=9');
    expect(past.status).toBe(200);
    expect(items(past)).toEqual([]);
    expectError(await supplier.get('/styles?page=0'), 400, 'validation_error');
    expectError(await supplier.get('/styles?limit=0'), 400, 'validation_error');
  });

  it('rule: the default order is desc on createdAt; order=asc reverses it', async () => {
    const desc = items(await supplier.get('/styles?limit=100')).map((item) => item.id);
    const asc = items(await supplier.get('/styles?limit=100&order=asc')).map((item) => item.id);
    expect(desc).toEqual([...asc].reverse());
    expect(desc[0]).toBe(created[44]?.id);
  });

  it('rule: sort takes only the listed columns and order only asc/desc', async () => {
    const byName = items(await supplier.get('/styles?sort=name&order=asc&limit=3')).map((item) => item.name);
    expect(byName).toEqual(['Conventions 00', 'Conventions 01', 'Conventions 02']);
    expectError(await supplier.get('/styles?sort=codes'), 400, 'validation_error');
    expectError(await supplier.get('/styles?order=up'), 400, 'validation_error');
  });

  it('rule: unknown query parameters are ignored', async () => {
    const response = await supplier.get('/styles?colourScheme=loud');
    expect(response.status).toBe(200);
    expect(response.body.metadata.pagination?.total).toBe(45);
  });
});

describe('filters', () => {
  it('rule: boolean filters accept only true and false (400 on 1, yes, TRUE)', async () => {
    expect(items(await supplier.get('/styles?isComponent=true&limit=100'))).toHaveLength(23);
    expect(items(await supplier.get('/styles?isComponent=false&limit=100'))).toHaveLength(22);
    for (const value of ['1', 'yes', 'TRUE', '']) {
      expectError(await supplier.get(`/styles?isComponent=${value}`), 400, 'validation_error');
    }
  });

  it('rule: updatedAfterUnixMs / updatedBeforeUnixMs are milliseconds on the update time', async () => {
    const target = created[10] as Item;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = (await supplier.put(`/styles/${target.id}`, { name: 'Conventions renamed' })).body
      .data as Item;
    const mark = Date.parse(renamed.updatedAt);
    const after = items(await supplier.get(`/styles?updatedAfterUnixMs=${mark}&limit=100`)).map(
      (item) => item.id,
    );
    expect(after).toEqual([target.id]);
    const before = items(await supplier.get(`/styles?updatedBeforeUnixMs=${mark - 1}&limit=100`));
    expect(before).toHaveLength(44);
    // The same instant given in seconds is a 1970 timestamp in milliseconds: everything is after it.
    const seconds = Math.floor(mark / 1000);
    expect(items(await supplier.get(`/styles?updatedAfterUnixMs=${seconds}&limit=100`))).toHaveLength(45);
  });
});

describe('authentication and scoping', () => {
  it('rule: a missing or unknown companyapikey is 401 token_or_api_key_invalid', async () => {
    expectError(await sandboxClient(sandbox.baseUrl).get('/styles'), 401, 'token_or_api_key_invalid');
    expectError(
      await sandboxClient(sandbox.baseUrl, 'sandbox-key-nope').get('/styles'),
      401,
      'token_or_api_key_invalid',
    );
  });

  it('rule: a key bound to no company gets 403 insufficient_rights', async () => {
    expectError(
      await sandboxClient(sandbox.baseUrl, 'sandbox-key-unbound').get('/styles'),
      403,
      'insufficient_rights',
    );
  });

  it("rule: every record is scoped to the key's company", async () => {
    const brand = sandboxClient(sandbox.baseUrl, 'sandbox-key-brand');
    expectError(await brand.get(`/styles/${created[0]?.id}`), 404, 'not_found');
    const brandIds = items(await brand.get('/styles?limit=100')).map((item) => item.id);
    expect(brandIds.some((id) => created.some((item) => item.id === id))).toBe(false);
  });
});

describe('rate limit', () => {
  it('rule: every answer carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds)', async () => {
    const ok = await supplier.get('/styles?limit=1');
    const missing = await supplier.get('/styles/style_missing');
    for (const response of [ok, missing]) {
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(Date.now() / 1000);
      expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    }
    expect(Number(missing.headers.get('x-ratelimit-remaining'))).toBe(
      Number(ok.headers.get('x-ratelimit-remaining')) - 1,
    );
  });

  it('rule: beyond the allowance the answer is 429 too_many_requests with Retry-After; order creation is exempt', async () => {
    const otherBrand = sandboxClient(sandbox.baseUrl, 'sandbox-key-other-brand');
    await control.put('/__sandbox/config', { rateLimitPerMinute: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await otherBrand.get('/styles')).status).toBe(200);
      const refused = await otherBrand.get('/styles');
      expectError(refused, 429, 'too_many_requests');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
      // The allowance is shared by every endpoint.
      expectError(await otherBrand.get('/style-types'), 429, 'too_many_requests');
      expectError(await otherBrand.get('/orders'), 429, 'too_many_requests');
      // POST /orders is answered by its own rules, never refused by the limiter.
      expect((await otherBrand.post('/orders', {})).status).not.toBe(429);
    } finally {
      await control.put('/__sandbox/config', { rateLimitPerMinute: RATE_LIMIT });
    }
  });

  it('rule: the window rolls: a slot frees one minute after the call that took it', () => {
    let now = 1_000_000;
    const limiter = new RollingRateLimiter(2, () => now);
    expect(limiter.take('k').allowed).toBe(true);
    now += 30_000;
    expect(limiter.take('k').remaining).toBe(0);
    const refused = limiter.take('k');
    expect(refused).toMatchObject({
      allowed: false,
      retryAfterSeconds: 30,
      resetUnixSeconds: Math.ceil((1_000_000 + 60_000) / 1000),
    });
    expect(limiter.take('k', true).allowed).toBe(true);
    now += 30_000;
    expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('other-key').allowed).toBe(true);
  });

  // Test-only (sandbox/README.md, rateWindowMs): a shorter window, for tests that wait one out; not the spec's.
  it('a test-only window length: a slot frees that long after its call, and Reset says so', () => {
    let now = 1_000_000;
    const limiter = new RollingRateLimiter(1, () => now, 15_000);
    expect(limiter.take('k')).toMatchObject({ allowed: true, resetUnixSeconds: Math.ceil(1_015_000 / 1000) });
    now += 14_000;
    expect(limiter.take('k')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now += 1_000;
    expect(limiter.take('k').allowed).toBe(true);
  });
});

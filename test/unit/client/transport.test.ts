import { inspect } from 'node:util';
import { toActivityFailure } from '../../../activities/batch-kit';
import { TraceabilityClient, type TraceabilityLogger } from '../../../connectors/traceability';
import { fail, ok, order, page, product, rateHeaders, sendJson, startStub } from './stub-server';
import { caught } from '../../harness/errors';

const KEY = 'k3y$ecret-value-123';

function captureLogger(): { logger: TraceabilityLogger; lines: string[] } {
  const lines: string[] = [];
  const push = (obj: Record<string, unknown>, msg?: string): void =>
    void lines.push(JSON.stringify({ ...obj, msg }));
  return { logger: { debug: push, info: push, warn: push, error: push }, lines };
}

const fastRetries = { backoffBaseMs: 1, backoffCapMs: 5 };

describe('Transport over HTTP', () => {
  it('sends the key header, encodes ids and parses the envelope', async () => {
    const stub = await startStub((_req, res) =>
      sendJson(res, 200, ok(product({ externalId: 'A/B 1' })), rateHeaders(10)),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const found = await client.products.get('A/B 1');
    expect(found.externalId).toBe('A/B 1');
    expect(stub.seen[0]?.url).toBe('/api/v2/styles/A%2FB%201');
    expect(stub.seen[0]?.headers.companyapikey).toBe(KEY);
    expect(client.stats().byMethodStatus).toEqual({ 'GET 200': 1 });
    await client.close();
    await stub.close();
  });

  it('waits out a 429 Retry-After and then succeeds', async () => {
    const stub = await startStub((_req, res, i) =>
      i === 0
        ? sendJson(res, 429, fail(429, 'too_many_requests'), { 'retry-after': '1', ...rateHeaders(0) })
        : sendJson(res, 200, page([product()]), rateHeaders(5)),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const started = Date.now();
    const result = await client.products.list();
    expect(result.items).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(client.stats()).toMatchObject({ rateLimited: 1, retries: 1, calls: 2 });
    await client.close();
    await stub.close();
  });

  it('turns a Retry-After longer than maxInlineRetryAfterMs into a Temporal retry delay', async () => {
    const stub = await startStub((_req, res) =>
      sendJson(res, 429, fail(429, 'too_many_requests'), { 'retry-after': '120' }),
    );
    const client = new TraceabilityClient({
      baseUrl: stub.baseUrl,
      apiKey: KEY,
      maxInlineRetryAfterMs: 5_000,
    });
    const error = await caught(client.styleTypes.list());
    expect(error).toMatchObject({
      statusCode: 429,
      code: 'too_many_requests',
      retryable: true,
      retryAfterMs: 120_000,
    });
    expect(stub.seen).toHaveLength(1);
    const failure = toActivityFailure(error) as {
      type: string;
      nextRetryDelay: unknown;
      nonRetryable: boolean;
    };
    expect(failure.type).toBe('TraceabilityApiError:too_many_requests');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(120_000);
    await client.close();
    await stub.close();
  });

  it('retries a GET after 5xx answers', async () => {
    const stub = await startStub((_req, res, i) =>
      i < 2 ? sendJson(res, 503, fail(503, 'unavailable')) : sendJson(res, 200, page([]), rateHeaders(5)),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    await expect(client.certificates.list()).resolves.toMatchObject({ items: [] });
    expect(client.stats()).toMatchObject({ retries: 2, calls: 3 });
    await client.close();
    await stub.close();
  });

  it('does not retry POST /orders when the connection drops, and flags maybeCommitted', async () => {
    const stub = await startStub((_req, res) => res.socket?.destroy());
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const error = await caught(
      client.orders.create({ orderNumber: 'PO-9', buyerCompanyId: 'b', supplierCompanyId: 's' }),
    );
    expect(error).toMatchObject({
      code: 'network_error',
      retryable: true,
      maybeCommitted: true,
      attempts: 1,
      statusCode: 0,
    });
    expect(stub.seen).toHaveLength(1);
    await client.close();
    await stub.close();
  });

  it('does not retry POST /orders after a 5xx either', async () => {
    const stub = await startStub((_req, res) => sendJson(res, 500, fail(500, 'internal_server_error')));
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const error = await caught(
      client.orders.create({ orderNumber: 'PO-9', buyerCompanyId: 'b', supplierCompanyId: 's' }),
    );
    expect(error).toMatchObject({ statusCode: 500, retryable: true, maybeCommitted: true });
    expect(stub.seen).toHaveLength(1);
    await client.close();
    await stub.close();
  });

  // Errors contract: `maybeCommitted` is true "when a non-idempotent write may have been applied"; DESIGN: "Order
  // creation is not idempotent on the server, so the connector re-reads by `orderNumber` ... after any failed one".
  it('flags maybeCommitted when a 201 to POST /orders answers a body that breaks the schema', async () => {
    const stub = await startStub((_req, res) => sendJson(res, 201, ok(order({ orderType: 'PURCHASE' }))));
    const { logger, lines } = captureLogger();
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, logger, ...fastRetries });
    const error = await caught(
      client.orders.create({ orderNumber: 'PO-9', buyerCompanyId: 'b', supplierCompanyId: 's' }),
    );
    expect(error).toMatchObject({
      statusCode: 201,
      code: 'invalid_response',
      retryable: false,
      maybeCommitted: true,
      attempts: 1,
    });
    expect(error.issues[0]?.path).toBe('data.orderType');
    expect(stub.seen).toHaveLength(1);
    const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failed).toContainEqual(
      expect.objectContaining({ msg: 'traceability api call failed', status: 201, maybeCommitted: true }),
    );
    await client.close();
    await stub.close();
  });

  it('does not flag maybeCommitted when a GET answers a body that breaks the schema', async () => {
    const stub = await startStub((_req, res) => sendJson(res, 200, ok(order({ orderType: 'PURCHASE' }))));
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const error = await caught(client.orders.get('order_1'));
    expect(error).toMatchObject({ code: 'invalid_response', maybeCommitted: false, attempts: 1 });
    await client.close();
    await stub.close();
  });

  it('flags maybeCommitted when the caller aborts POST /orders after it was sent', async () => {
    const stub = await startStub((_req, res) => setTimeout(() => sendJson(res, 201, ok(order())), 400));
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const error = await caught(
      client.orders.create(
        { orderNumber: 'PO-9', buyerCompanyId: 'b', supplierCompanyId: 's' },
        { signal: controller.signal },
      ),
    );
    expect(error).toMatchObject({ code: 'aborted', retryable: false, maybeCommitted: true, attempts: 1 });
    expect(stub.seen).toHaveLength(1);
    await client.close();
    await stub.close();
  });

  it('keeps maybeCommitted when the caller aborts during the backoff after a lost POST /styles answer', async () => {
    const stub = await startStub((_req, res) => res.socket?.destroy());
    const client = new TraceabilityClient({
      baseUrl: stub.baseUrl,
      apiKey: KEY,
      backoffBaseMs: 2_000,
      backoffCapMs: 2_000,
      random: () => 0.99,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const error = await caught(
      client.products.create(
        { name: 'x', codes: [{ codeId: 'PLM_ID', codeValue: '1' }], styleTypeId: 't', isComponent: false },
        { signal: controller.signal },
      ),
    );
    expect(error).toMatchObject({ code: 'aborted', retryable: false, maybeCommitted: true, attempts: 1 });
    expect(stub.seen).toHaveLength(1);
    await client.close();
    await stub.close();
  });

  it('does not flag maybeCommitted when the caller aborts a GET', async () => {
    const stub = await startStub((_req, res) => setTimeout(() => sendJson(res, 200, ok(product())), 400));
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const error = await caught(client.products.get('style_1', {}, { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'aborted', maybeCommitted: false });
    await client.close();
    await stub.close();
  });

  it('retries an idempotent PUT after a dropped connection', async () => {
    const stub = await startStub((_req, res, i) =>
      i === 0 ? res.socket?.destroy() : sendJson(res, 200, ok(product()), rateHeaders(5)),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    await expect(client.products.update('EXT-1', { name: 'Jacket' })).resolves.toMatchObject({
      id: 'style_1',
    });
    expect(stub.seen).toHaveLength(2);
    await client.close();
    await stub.close();
  });

  it('sends POST /orders at once even when the pacer is holding counted calls', async () => {
    const stub = await startStub((req, res) =>
      req.method === 'POST'
        ? sendJson(res, 201, ok(order()), rateHeaders(0))
        : sendJson(res, 200, page([]), rateHeaders(0)),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    await client.orders.list();
    client.rateLimiter.pauseFor(60_000);
    const started = Date.now();
    await client.orders.create({ orderNumber: 'PO-1', buyerCompanyId: 'cmp_b', supplierCompanyId: 'cmp_s' });
    expect(Date.now() - started).toBeLessThan(1_000);
    await client.close();
    await stub.close();
  });

  it('times out a request that gets no answer', async () => {
    const stub = await startStub(() => undefined);
    const client = new TraceabilityClient({
      baseUrl: stub.baseUrl,
      apiKey: KEY,
      timeoutMs: 150,
      maxRetries: 1,
      ...fastRetries,
    });
    const error = await caught(client.products.get('x'));
    expect(error).toMatchObject({ code: 'timeout', retryable: true, attempts: 2, statusCode: 0 });
    expect(client.stats().timeouts).toBe(2);
    await client.close();
    await stub.close();
  });

  it('names endpoint, JSON path and problem when a response breaks the schema', async () => {
    const stub = await startStub((_req, res) =>
      sendJson(res, 200, ok(product({ codes: [{ codeId: 'PLM_ID' }] }))),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const error = await caught(client.products.get('style_1'));
    expect(error.code).toBe('invalid_response');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('GET /styles/{id}');
    expect(error.message).toContain('data.codes[0].codeValue');
    expect(error.issues[0]?.path).toBe('data.codes[0].codeValue');
    await client.close();
    await stub.close();
  });

  it('rejects a bad request before spending a call', async () => {
    const stub = await startStub((_req, res) => sendJson(res, 201, ok(order())));
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const error = await caught(
      client.orders.create({
        orderNumber: 'PO-1',
        buyerCompanyId: 'b',
        supplierCompanyId: 's',
        orderDate: '2025-01-02T00:00:00Z',
      }),
    );
    expect(error).toMatchObject({ code: 'invalid_request', retryable: false });
    expect(error.issues[0]?.path).toBe('request.orderDate');
    expect(stub.seen).toHaveLength(0);
    await client.close();
    await stub.close();
  });

  // Spec 01: "Errors carry `metadata.success = false`, integer `statusCode`, stable string `code` and human-readable
  // `message`. Clients branch on `statusCode` or `code`, never on `message`."
  it.each([
    [
      'an array',
      ['name must be a string', 'codes must not be empty'],
      'name must be a string; codes must not be empty',
    ],
    ['null', null, 'HTTP 400'],
    ['an object', { detail: 'x'.repeat(1_000) }, '{"detail":"xxx'],
  ])(
    'keeps the code of an error body whose message is %s, and renders the message bounded',
    async (_, message, shown) => {
      const stub = await startStub((_req, res) =>
        sendJson(res, 400, {
          metadata: { success: false },
          statusCode: 400,
          code: 'codes_not_unique',
          message,
        }),
      );
      const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
      const error = await caught(client.products.get('x'));
      expect(error).toMatchObject({ statusCode: 400, code: 'codes_not_unique', retryable: false });
      expect(error.message).toContain(`GET /styles/{id} failed with 400 codes_not_unique: ${shown}`);
      expect(error.message.length).toBeLessThan(400);
      await client.close();
      await stub.close();
    },
  );

  it('reads the code from metadata when the top-level one is not a string', async () => {
    const stub = await startStub((_req, res) =>
      sendJson(res, 409, {
        metadata: { success: false, statusCode: 409, code: 'tracing_locked', message: 'locked' },
        code: 42,
      }),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const error = await caught(client.products.get('x'));
    expect(error).toMatchObject({ statusCode: 409, code: 'tracing_locked' });
    expect(error.message).toContain('locked');
    await client.close();
    await stub.close();
  });

  // Spec 01, Errors: "403 | insufficient_rights / forbidden | Credential not bound to a company; record restricted to
  // another company": the first answers for the key (what to check is said), the second for the record.
  it('names an HTML page answered in place of the API (a proxy or login page) and the setting to check', async () => {
    const page = '<!DOCTYPE html><html><body>Sign in to Corp Proxy</body></html>';
    const stub = await startStub((req, res) => {
      res.writeHead(req.url?.includes('/orders') ? 502 : 200, { 'content-type': 'text/html' });
      res.end(page);
    });
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, ...fastRetries });
    const ok200 = await caught(client.products.get('style_1'));
    expect(ok200.message).toContain('GET /styles/{id}');
    expect(ok200.message).toContain('an HTML page, not the API');
    expect(ok200.message).toContain('check TRACEABILITY_BASE_URL');
    const gateway = await caught(client.orders.list({ limit: 1 }));
    expect(gateway.statusCode).toBe(502);
    expect(gateway.message).toBe(
      'GET /orders failed with 502: an HTML page, not the API (a proxy, gateway or login page answered?): ' +
        `check TRACEABILITY_BASE_URL; the page begins "<!DOCTYPE html><html><body>Sign in to Corp Proxy</body></htm…"`,
    );
    await client.close();
    await stub.close();
  });

  it('keeps the key out of an HTML page’s first words, whole, cut or encoded', async () => {
    const key = 'k3y$SECRET&abcdefghijklmnopqrstuvwxyz';
    const pages = [
      `<html>Denied for companyapikey=${key}</html>`,
      `<html>Denied for ${encodeURIComponent(key)}</html>`,
      `<html>Denied for ${key.replace('&', '&amp;')}</html>`,
    ];
    let page = '';
    const stub = await startStub((req, res) => {
      res.writeHead(req.url?.includes('/orders') ? 502 : 200, { 'content-type': 'text/html' });
      res.end(page);
    });
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: key, ...fastRetries });
    for (const echoed of pages) {
      page = echoed;
      const ok200 = await caught(client.products.get('style_1'));
      const gateway = await caught(client.orders.list({ limit: 1 }));
      for (const error of [ok200, gateway]) {
        const shown = `${error.message} ${JSON.stringify(error.issues ?? [])}`;
        expect(shown).toContain('[REDACTED]');
        expect(shown).not.toContain('SECRET');
      }
    }
    await client.close();
    await stub.close();
  });

  it('keeps the key out of a JSON error message cut to its bound, whole, encoded or escaped', async () => {
    const key = 'k3y$SECRET&abcdefghijklmnopqrstuvwxyz';
    const messages: unknown[] = [
      { detail: `${'x'.repeat(280)} companyapikey=${key}` },
      [`denied for ${encodeURIComponent(key).toLowerCase()}`],
      `denied for ${key.replace('&', '&#x26;')}`,
    ];
    let message: unknown = '';
    const stub = await startStub((_req, res) =>
      sendJson(res, 400, { metadata: { success: false }, statusCode: 400, code: 'bad_request', message }),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: key });
    for (const echoed of messages) {
      message = echoed;
      const error = await caught(client.products.get('style_1'));
      expect(error.message).not.toContain('SECRET');
    }
    await client.close();
    await stub.close();
  });

  it('says to check the key on a 403 insufficient_rights, not on a 403 forbidden', async () => {
    const stub = await startStub((req, res) =>
      req.url?.includes('restricted')
        ? sendJson(res, 403, fail(403, 'forbidden', 'Record restricted to another company'))
        : sendJson(res, 403, fail(403, 'insufficient_rights', 'Credential not bound to a company')),
    );
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const unbound = await caught(client.orders.list({ limit: 1 }));
    expect(unbound).toMatchObject({ statusCode: 403, code: 'insufficient_rights', retryable: false });
    expect(unbound.message).toContain('check TRACEABILITY_API_KEY');
    const restricted = await caught(client.orders.get('restricted'));
    expect(restricted).toMatchObject({ statusCode: 403, code: 'forbidden' });
    expect(restricted.message).not.toContain('TRACEABILITY_API_KEY');
    await client.close();
    await stub.close();
  });

  it('never lets the key reach errors, their JSON, inspect output or logs', async () => {
    const stub = await startStub((req, res) =>
      sendJson(
        res,
        401,
        fail(401, 'token_or_api_key_invalid', `bad key ${String(req.headers.companyapikey)}`),
      ),
    );
    const { logger, lines } = captureLogger();
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY, logger });
    const error = await caught(client.products.list({ nameOrCode: 'x' }));
    expect(error).toMatchObject({
      statusCode: 401,
      code: 'token_or_api_key_invalid',
      retryable: false,
      path: '/styles',
    });
    const surfaces = [
      error.message,
      error.stack ?? '',
      JSON.stringify(error),
      inspect(error),
      inspect(client, { depth: 10, showHidden: true }),
      ...lines,
    ];
    for (const text of surfaces) expect(text).not.toContain(KEY);
    expect(lines.length).toBeGreaterThan(0);
    await client.close();
    await stub.close();
  });

  it('uploads to the signed URL with both content types and without the key', async () => {
    let origin = '';
    const stub = await startStub((req, res) => {
      if (req.url.startsWith('/api/v2/files'))
        sendJson(res, 200, ok({ id: 'file_1', url: `${origin}/bucket/file_1.pdf?sig=abc` }));
      else res.writeHead(200).end();
    });
    origin = stub.origin;
    const client = new TraceabilityClient({ baseUrl: stub.baseUrl, apiKey: KEY });
    const record = await client.files.upload({
      filename: 'cert.pdf',
      bytes: new TextEncoder().encode('%PDF-1'),
    });
    expect(record.id).toBe('file_1');
    const put = stub.seen[1];
    expect(put?.method).toBe('PUT');
    expect(put?.headers['content-type']).toBe('application/pdf');
    expect(put?.headers['x-upload-content-type']).toBe('application/pdf');
    expect(put?.headers.companyapikey).toBeUndefined();
    expect(JSON.parse(stub.seen[0]?.body ?? '{}')).toEqual({
      filename: 'cert.pdf',
      fileSize: 6,
      fileType: 'application/pdf',
    });
    await client.close();
    await stub.close();
  });
});

describe("the client's log lines during an outage", () => {
  it('a call retried through 500s warns at its first retry and every 5th, the rest at debug, and once when it fails; no frames', async () => {
    const stub = await startStub((_req, res) => sendJson(res, 500, fail(500, 'internal_error')));
    const lines: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
    const at =
      (level: string) =>
      (obj: Record<string, unknown>, msg?: string): void =>
        void lines.push({ level, obj, msg });
    const logger: TraceabilityLogger = {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
    };
    const client = new TraceabilityClient({
      baseUrl: stub.baseUrl,
      apiKey: KEY,
      logger,
      maxRetries: 11,
      ...fastRetries,
    });
    const error = await caught(client.styleTypes.list());
    expect(error).toMatchObject({ statusCode: 500, attempts: 12 });
    expect(stub.seen).toHaveLength(12);
    const retried = lines.filter((line) => line.msg === 'traceability api call will be retried');
    expect(retried).toHaveLength(11);
    expect(retried.filter((line) => line.level === 'warn').map((line) => line.obj.attempt)).toEqual([
      1, 5, 10,
    ]);
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings.map((line) => line.msg)).toEqual([
      'traceability api call will be retried',
      'traceability api call will be retried',
      'traceability api call will be retried',
      'traceability api call failed',
    ]);
    expect(warnings[3]?.obj).toMatchObject({ status: 500, code: 'internal_error', attempts: 12 });
    expect(JSON.stringify(lines)).not.toMatch(/\bat \S+ \(|"stack"|"err"/);
    await client.close();
    await stub.close();
  });
});

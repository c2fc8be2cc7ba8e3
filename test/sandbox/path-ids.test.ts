import { sandboxClient, type SandboxClient } from '../../sandbox/core/http-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';

/**
 * Spec 01, Product catalogue: "externalId rules: ... usable anywhere a product id is expected (path ids, ...)", and
 * the product schema takes an externalId of 1-255 characters. So a path id of 255 characters is an id like any
 * other (the web framework's default refuses path parameters over 100 characters with 414).
 */
let sandbox: RunningSandbox;
let brand: SandboxClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100_000, qrDelayMs: 0, childLinkDelayMs: 0 });
  brand = sandboxClient(sandbox.baseUrl, 'sandbox-key-brand');
});

afterAll(async () => {
  await sandbox.close();
});

describe('path ids up to the 255 characters an externalId may have', () => {
  it.each([
    ['ASCII', (n: number) => `E${process.pid}-`.padEnd(n, 'x')],
    [
      'non-ASCII (each character percent-encoded as several bytes)',
      (n: number) => `É${process.pid}-`.padEnd(n, 'ü'),
    ],
  ])(
    'a product created with a 255-character %s externalId is read back by it in the path',
    async (_kind, id) => {
      const externalId = id(255);
      expect(externalId).toHaveLength(255);
      const created = await brand.post('/styles', {
        name: 'Long id',
        externalId,
        codes: [{ codeId: 'PLM_ID', codeValue: `PLM-${externalId.length}-${_kind.length}` }],
        styleTypeId: 'st_tshirts',
        isComponent: false,
      });
      expect(created.status).toBe(201);
      const read = await brand.get(`/styles/${encodeURIComponent(externalId)}`);
      expect(read.status).toBe(200);
      expect((read.body.data as { externalId: string }).externalId).toBe(externalId);
    },
  );

  it('a path id longer than any id (256 characters) is simply not found, not a 414', async () => {
    const read = await brand.get(`/styles/${'y'.repeat(256)}`);
    expect(read.status).toBe(404);
  });
});

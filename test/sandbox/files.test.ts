import { sandboxClient, type SandboxClient, type SandboxResponse } from '../../sandbox/core/http-client';
import { MIME_BY_EXTENSION } from '../../sandbox/domains/files';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';

type FileRecord = { id: string; url: string; fileType: string; fileSize: number; name: string };

let sandbox: RunningSandbox;
let brand: SandboxClient;
let other: SandboxClient;
let serial = 0;

const record = (response: SandboxResponse): FileRecord => response.body.data as FileRecord;

function expectError(response: SandboxResponse, statusCode: number, code: string): void {
  expect([response.status, response.body.statusCode, response.body.code]).toEqual([
    statusCode,
    statusCode,
    code,
  ]);
}

/** POST /files with a body the spec refuses: 400 validation_error. */
async function rejected(body: Record<string, unknown>): Promise<void> {
  expectError(await brand.post('/files', body), 400, 'validation_error');
}

async function register(
  filename = 'front.png',
  fileType = 'image/png',
  fileSize = 4,
  client = brand,
): Promise<FileRecord> {
  const response = await client.post('/files', { filename, fileType, fileSize });
  if (response.status !== 200)
    throw new Error(`POST /files: ${response.status} ${JSON.stringify(response.body)}`);
  return record(response);
}

function upload(
  url: string,
  bytes: Buffer,
  contentType: string | undefined,
  uploadType: string | undefined,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (uploadType !== undefined) headers['x-upload-content-type'] = uploadType;
  return fetch(url, { method: 'PUT', headers, body: bytes });
}

async function uploaded(filename = 'front.png', fileType = 'image/png', client = brand): Promise<FileRecord> {
  const bytes = Buffer.from(`bytes of ${filename}`);
  const file = await register(filename, fileType, bytes.length, client);
  const response = await upload(file.url, bytes, fileType, fileType);
  if (response.status !== 200) throw new Error(`upload failed: ${response.status}`);
  return file;
}

const styleBody = (overrides: Record<string, unknown>) => ({
  name: 'With images',
  codes: [{ codeId: 'PLM_ID', codeValue: `img-${process.pid}-${++serial}` }],
  styleTypeId: 'st_tshirts',
  isComponent: false,
  ...overrides,
});

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100_000, qrDelayMs: 0 });
  brand = sandboxClient(sandbox.baseUrl, 'sandbox-key-brand');
  other = sandboxClient(sandbox.baseUrl, 'sandbox-key-other-brand');
});

afterAll(async () => {
  await sandbox.close();
});

describe('POST /files', () => {
  it('rule: a supported filename, matching MIME and size give 200 with a signed url outside /api/v2', async () => {
    const response = await brand.post('/files', {
      filename: 'care-label.pdf',
      fileType: 'application/pdf',
      fileSize: 2048,
    });
    expect(response.status).toBe(200);
    const file = record(response);
    expect(file).toMatchObject({ fileType: 'application/pdf', fileSize: 2048, name: 'care-label.pdf' });
    const url = new URL(file.url);
    expect(url.origin).toBe(sandbox.url);
    expect(url.pathname.startsWith('/api/v2')).toBe(false);
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rule: every extension/MIME pair of the table is accepted', async () => {
    for (const [extension, mime] of Object.entries(MIME_BY_EXTENSION)) {
      const response = await brand.post('/files', {
        filename: `file.${extension}`,
        fileType: mime,
        fileSize: 1,
      });
      expect([extension, response.status]).toEqual([extension, 200]);
    }
  });

  it('rule: an unsupported or missing extension is 400', async () => {
    await rejected({ filename: 'archive.zip', fileType: 'application/zip', fileSize: 10 });
    await rejected({ filename: 'README', fileType: 'text/csv', fileSize: 10 });
  });

  it('rule: an unsupported MIME, or one that disagrees with the extension, is 400', async () => {
    await rejected({ filename: 'photo.png', fileType: 'image/x-png', fileSize: 10 });
    const disagree = await brand.post('/files', {
      filename: 'photo.png',
      fileType: 'image/jpeg',
      fileSize: 10,
    });
    expectError(disagree, 400, 'validation_error');
    expect(disagree.body.message).toContain('fileType');
  });

  it('rule: fileSize must be 1 to 1073741824 bytes', async () => {
    await rejected({ filename: 'a.csv', fileType: 'text/csv', fileSize: 0 });
    await rejected({ filename: 'a.csv', fileType: 'text/csv', fileSize: 1_073_741_825 });
    expect(
      (await brand.post('/files', { filename: 'a.csv', fileType: 'text/csv', fileSize: 1_073_741_824 }))
        .status,
    ).toBe(200);
  });

  it('rule: filename, fileSize and fileType are required', async () => {
    const missing = await brand.post('/files', { filename: 'a.csv', fileType: 'text/csv' });
    expectError(missing, 400, 'validation_error');
    expect(missing.body.message).toContain('fileSize');
  });
});

describe('PUT to the signed address', () => {
  it('rule: raw bytes with Content-Type and X-Upload-Content-Type equal to fileType give 200 with an empty body', async () => {
    const bytes = Buffer.from('%PDF-1.7 demo');
    const file = await register('cert.pdf', 'application/pdf', bytes.length);
    const response = await upload(file.url, bytes, 'application/pdf', 'application/pdf');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('rule: a Content-Type or X-Upload-Content-Type other than fileType is 403', async () => {
    const file = await register('sheet.csv', 'text/csv', 3);
    expect((await upload(file.url, Buffer.from('a,b'), 'application/octet-stream', 'text/csv')).status).toBe(
      403,
    );
    expect((await upload(file.url, Buffer.from('a,b'), 'text/csv', 'text/plain')).status).toBe(403);
    expect((await upload(file.url, Buffer.from('a,b'), 'text/csv', undefined)).status).toBe(403);
    expect((await upload(file.url, Buffer.from('a,b'), 'text/csv', 'text/csv')).status).toBe(200);
  });

  it('rule: a tampered signature or expiry is 403', async () => {
    const file = await register('x.png', 'image/png', 3);
    const badSignature = new URL(file.url);
    badSignature.searchParams.set('signature', '0'.repeat(64));
    expect((await upload(badSignature.toString(), Buffer.from('abc'), 'image/png', 'image/png')).status).toBe(
      403,
    );
    const laterExpiry = new URL(file.url);
    laterExpiry.searchParams.set(
      'expires',
      String(Number(laterExpiry.searchParams.get('expires')) + 3_600_000),
    );
    expect((await upload(laterExpiry.toString(), Buffer.from('abc'), 'image/png', 'image/png')).status).toBe(
      403,
    );
  });

  it('rule: an address older than one hour is 403, and a new POST /files gives a fresh one', async () => {
    const stale = await register('late.png', 'image/png', 3);
    const control = sandboxClient(sandbox.url);
    await control.post('/__sandbox/clock', { advanceMs: 60 * 60 * 1000 + 1000 });
    expect((await upload(stale.url, Buffer.from('abc'), 'image/png', 'image/png')).status).toBe(403);
    const fresh = await register('late.png', 'image/png', 3);
    expect((await upload(fresh.url, Buffer.from('abc'), 'image/png', 'image/png')).status).toBe(200);
  });

  it('rule: the storage address needs no API key and is not rate limited', async () => {
    const file = await register('free.png', 'image/png', 3);
    const response = await upload(file.url, Buffer.from('abc'), 'image/png', 'image/png');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('imagesFileIds on products', () => {
  it('rule: an uploaded file becomes a product image with its url and type', async () => {
    const file = await uploaded('front.jpg', 'image/jpeg');
    const created = await brand.post('/styles', styleBody({ imagesFileIds: [file.id] }));
    expect(created.status).toBe(201);
    const product = created.body.data as {
      id: string;
      images: Array<Record<string, unknown>>;
      featureImageUrl: string;
    };
    expect(product.images).toEqual([
      expect.objectContaining({
        id: file.id,
        fileType: 'image/jpeg',
        contentType: 'image/jpeg',
        name: 'front.jpg',
      }),
    ]);
    const bytes = await fetch(product.featureImageUrl);
    expect(await bytes.text()).toBe('bytes of front.jpg');
  });

  it("rule: an unknown file id, a file never uploaded, or another company's file is 400", async () => {
    expectError(
      await brand.post('/styles', styleBody({ imagesFileIds: ['file_missing'] })),
      400,
      'validation_error',
    );
    const notUploaded = await register('pending.png', 'image/png', 10);
    expectError(
      await brand.post('/styles', styleBody({ imagesFileIds: [notUploaded.id] })),
      400,
      'validation_error',
    );
    const foreign = await uploaded('theirs.png', 'image/png', other);
    expectError(
      await brand.post('/styles', styleBody({ imagesFileIds: [foreign.id] })),
      400,
      'validation_error',
    );
  });

  it('rule: SKU-level images carry only the short image shape', async () => {
    const file = await uploaded('sku.png', 'image/png');
    const style = (await brand.post('/styles', styleBody({}))).body.data as { id: string };
    const variant = (
      await brand.post('/styles', {
        parentId: style.id,
        name: 'v',
        color: 'Red',
        codes: [{ codeId: 'PLM_ID', codeValue: `v-${++serial}` }],
        imagesFileIds: [file.id],
      })
    ).body.data as { id: string; images: Array<Record<string, unknown>> };
    expect(variant.images[0]).toHaveProperty('bucketName');
    const sku = await brand.post('/styles', {
      parentId: variant.id,
      name: 's',
      dimension: 'M',
      codes: [{ codeId: 'PLM_ID', codeValue: `s-${++serial}` }],
      imagesFileIds: [file.id],
    });
    const image = (sku.body.data as { images: Array<Record<string, unknown>> }).images[0] ?? {};
    expect(Object.keys(image).sort()).toEqual([
      'contentType',
      'createdAt',
      'fileType',
      'id',
      'name',
      'previewUrl',
      'updatedAt',
      'url',
    ]);
  });
});

import { caught } from '../harness/errors';
import { sandboxForFile } from '../harness/sandbox-client';

const h = sandboxForFile();

describe('files against the sandbox', () => {
  it('uploads in two steps and the file id can be attached to a product', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
    const record = await h.client.files.upload({ filename: 'front.png', bytes });
    expect(record.id).toBeTruthy();
    expect(new URL(record.url).pathname.startsWith('/api/v2')).toBe(false);
    const product = await h.client.products.update('PLM-TEE-001', { imagesFileIds: [record.id] });
    expect(product.imagesFileIds).toContain(record.id);
  });

  it('refuses an extension the API does not accept before any call', async () => {
    const before = h.client.stats().calls;
    const error = await caught(h.client.files.upload({ filename: 'notes.txt', bytes: new Uint8Array([1]) }));
    expect(error).toMatchObject({ code: 'invalid_request', retryable: false });
    expect(h.client.stats().calls).toBe(before);
  });

  it('gets a 403 from storage when the content type does not match the registration', async () => {
    const record = await h.client.files.register({
      filename: 'a.pdf',
      fileSize: 3,
      fileType: 'application/pdf',
    });
    const error = await caught(h.client.files.putBytes(record, new Uint8Array([1, 2, 3]), 'image/png'));
    expect(error.statusCode).toBe(403);
    expect(error.path).not.toContain('?');
  });
});

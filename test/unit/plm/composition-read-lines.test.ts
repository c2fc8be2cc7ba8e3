import { readLines } from '../../../connectors/plm-import/composition';
import { ApiCalls } from '../../../connectors/staging';
import { TraceabilityClient } from '../../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';

/**
 * Spec 02 lists no unique sort column for GET /material-lines, and a fork copies "all lines" of a composition at
 * once (one `createdAt`); only GET /orders is promised a "stable" paging order "for equal sort values" (spec 03).
 * Reading every line of the account by page number may then meet some lines twice and miss others.
 */
describe('readLines (PLM compositions) when material lines with equal sort values come in no stable order', () => {
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;
  let sequence = 0;

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(sandbox.baseUrl + path, {
      method,
      headers: { companyapikey: 'sandbox-key-brand', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const envelope = (await response.json()) as { data: T };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(envelope)}`);
    return envelope.data;
  };
  const newProduct = async (body: Record<string, unknown>): Promise<string> =>
    (
      await call<{ id: string }>('POST', '/styles', {
        codes: [{ codeId: 'PLM_ID', codeValue: `TIES-${++sequence}` }],
        ...body,
      })
    ).id;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100_000, childLinkDelayMs: 0, qrDelayMs: 0 });
    client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  it('answers every line of every header once', async () => {
    const style = await newProduct({ name: 'Ties', styleTypeId: 'st_tshirts', isComponent: false });
    const shared = await call<{ id: string }>('POST', '/material-headers', {
      name: 'Shell',
      link: { styleId: style, isMainMaterial: true },
    });
    for (let i = 0; i < 30; i++)
      await call('POST', '/material-lines', {
        styleId: style,
        materialHeaderId: shared.id,
        parentId: null,
        rawMaterialId: `rawmat_${i}`,
        percentage: 3,
      });
    // Four variants each write through their inherited link: four full forks of 31 lines, each sharing createdAt.
    const headers = [shared.id];
    for (let v = 0; v < 4; v++) {
      const variant = await newProduct({ parentId: style, name: `Ties ${v}`, color: `C${v}` });
      const line = await call<{ materialHeaderId: string }>('POST', '/material-lines', {
        styleId: variant,
        materialHeaderId: shared.id,
        parentId: null,
        rawMaterialId: 'rawmat_new',
        percentage: 5,
      });
      headers.push(line.materialHeaderId);
    }
    const counts = async () => {
      const read = await readLines(new ApiCalls(client), headers);
      return headers.map((id) => new Set((read.get(id) ?? []).map((line) => line.id)).size);
    };
    expect(await counts()).toEqual([30, 31, 31, 31, 31]);

    await fetch(`${sandbox.url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ materialLineTies: 'shuffled' }),
    });
    for (let attempt = 0; attempt < 5; attempt++) expect(await counts()).toEqual([30, 31, 31, 31, 31]);
  });
});

import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { StagingIntegrityError, StagingStore } from '../../../connectors/staging';
import { DEFAULT_STAGING_RETENTION_DAYS, useStagingRetention } from '../../../connectors/staging/retention';

const rowSchema = z.object({ row: z.number(), name: z.string() });

describe('StagingStore', () => {
  let root: string;
  let store: StagingStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'staging-'));
    store = new StagingStore(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('round-trips an NDJSON batch and counts its records', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => ({ row: i + 2, name: `Style ${i}` }));
    const ref = await store.putNdjson('run-1/batch-0001.ndjson', rows);
    expect(ref.items).toBe(250);
    const back: Array<z.infer<typeof rowSchema>> = [];
    for await (const row of store.readNdjson(ref, rowSchema)) back.push(row);
    expect(back).toEqual(rows);
  });

  it('refuses data that changed after it was staged', async () => {
    const ref = await store.putJson('run-1/plan.json', { creates: 3 });
    await writeFile(join(root, 'run-1/plan.json'), JSON.stringify({ creates: 4 }));
    await expect(store.getJson(ref, z.object({ creates: z.number() }))).rejects.toThrow(
      StagingIntegrityError,
    );
  });

  it('says clearly when staged data is missing', async () => {
    const ref = await store.putJson('run-2/plan.json', { creates: 1 });
    await store.remove('run-2');
    await expect(store.getJson(ref, z.object({ creates: z.number() }))).rejects.toThrow(/missing/);
  });

  it('on a worker that never sweeps (TRACE_STAGING_RETENTION_DAYS=off), says missing data was not its own sweep', async () => {
    const ref = await store.putJson('run-2/plan.json', { creates: 1 });
    await store.remove('run-2');
    useStagingRetention(null);
    try {
      await expect(store.getJson(ref, z.object({ creates: z.number() }))).rejects.toThrow(
        /missing\. This worker never sweeps staged data \(TRACE_STAGING_RETENTION_DAYS=off\), so another worker sharing the data folder or store swept it/,
      );
    } finally {
      useStagingRetention(DEFAULT_STAGING_RETENTION_DAYS);
    }
  });

  it('rejects a record that does not match the schema, naming its line', async () => {
    const ref = await store.putNdjson('run-3/rows.ndjson', [
      { row: 1, name: 'a' },
      { row: 'two', name: 'b' },
    ]);
    const read = async () => {
      for await (const _row of store.readNdjson(ref, rowSchema)) {
        // consume
      }
    };
    await expect(read()).rejects.toThrow(/line 2/);
  });

  it('rejects keys that escape the staging folder', () => {
    expect(() => store.pathOf('../etc/passwd')).toThrow(/relative path/);
    expect(() => store.pathOf('/etc/passwd')).toThrow(/relative path/);
  });

  it('leaves no temporary file behind after a failed write', async () => {
    async function* failing() {
      yield { row: 1, name: 'ok' };
      throw new Error('source broke');
    }
    await expect(store.putNdjson('run-4/rows.ndjson', failing())).rejects.toThrow('source broke');
    expect(await store.exists('run-4/rows.ndjson')).toBe(false);
    expect(await readdir(join(root, 'run-4'))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { JsonLinesJournal, RunFolder, StagingStore } from '../../connectors/staging';
import { configureStorage, copyInput, openStore, S3Store, type ObjectStore } from '../../connectors/storage';
import { S3Client } from '@aws-sdk/client-s3';
import { printStoreLinks, storeLinksIn } from '../../cli/store-files';
import { repoRoot } from '../../worker/paths';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';

const describeS3 = describeWithS3();

describeS3('run-data store on S3 (versitygw)', () => {
  let s3: RunningS3;
  let store: ObjectStore;
  let dataDir: string;

  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), 'store-s3-'));
    store = configureStorage(dataDir, {
      url: s3.storeUrl('unit'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    });
  }, 120_000);

  afterAll(async () => {
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('puts, lists, copies and removes objects under the URL prefix', async () => {
    await store.put('runs/a/one.json', '{"a":1}');
    await store.put('runs/a/two.json', Buffer.from('{"b":2}'));
    expect(await store.list('runs/a/')).toEqual(['runs/a/one.json', 'runs/a/two.json']);
    expect((await store.get('runs/a/one.json'))?.toString()).toBe('{"a":1}');
    expect(await store.get('runs/a/none.json')).toBeNull();
    expect(await store.copy('runs/a/one.json', 'runs/b/one.json')).toBe(true);
    expect(await store.copy('runs/a/none.json', 'runs/b/none.json')).toBe(false);
    await store.removeFolder('runs/a/');
    expect(await store.list('runs/')).toEqual(['runs/b/one.json']);
    expect(store.urlOf('runs/b/one.json')).toBe(`s3://${s3.bucket}/unit/runs/b/one.json`);
  });

  it('uploads a 20 MB stream in parts and reads it back as a stream, byte for byte', async () => {
    const chunk = randomBytes(1024 * 1024);
    const expected = createHash('sha256');
    for (let i = 0; i < 20; i += 1) expected.update(chunk);
    await store.put(
      'inputs/big.bin',
      Readable.from(
        (function* () {
          for (let i = 0; i < 20; i += 1) yield chunk;
        })(),
      ),
    );
    const body = await store.read('inputs/big.bin');
    const actual = createHash('sha256');
    let bytes = 0;
    for await (const part of body!) {
      actual.update(part as Buffer);
      bytes += (part as Buffer).length;
    }
    expect(bytes).toBe(20 * 1024 * 1024);
    expect(actual.digest('hex')).toBe(expected.digest('hex'));
  });

  it('replaces a key with putIfMatch only while its ETag is unchanged: of writers racing from one read, one wins', async () => {
    const bucketStore = store as S3Store;
    await bucketStore.put('claims/file-2', 'first');
    const read = await bucketStore.getWithETag('claims/file-2');
    expect(read?.body.toString()).toBe('first');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => bucketStore.putIfMatch('claims/file-2', `taker-${i}`, read!.etag)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await bucketStore.get('claims/file-2'))?.toString()).toBe(`taker-${results.indexOf(true)}`);
    expect(await bucketStore.putIfMatch('claims/file-2', 'late', read!.etag)).toBe(false);
    expect(await bucketStore.putIfMatch('claims/missing', 'x', read!.etag)).toBe(false);
    expect(await bucketStore.getWithETag('claims/missing')).toBeNull();
  });

  it('writes a key only once with putIfAbsent, even when writers race', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.putIfAbsent('claims/file-1', `writer-${i}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect((await store.get('claims/file-1'))?.toString()).toBe(`writer-${winner}`);
  });

  it('stages batches in the bucket under the data folder key and verifies their hash on read', async () => {
    const run = new RunFolder(dataDir, 'run-s3-1', ['staging']);
    const rows = Array.from({ length: 500 }, (_, i) => ({ row: i + 2, name: `Style ${i}` }));
    const ref = await run.staging.putNdjson(run.key('batch-00001.ndjson'), rows);
    expect(await store.exists('runs/run-s3-1/staging/batch-00001.ndjson')).toBe(true);
    const back: unknown[] = [];
    for await (const row of run.staging.readNdjson(ref, z.object({ row: z.number(), name: z.string() })))
      back.push(row);
    expect(back).toEqual(rows);
    await store.put('runs/run-s3-1/staging/batch-00001.ndjson', '{"row":1,"name":"changed"}\n');
    await expect(run.staging.getJson(ref, z.unknown())).rejects.toThrow(/changed since it was staged/);
    // A second StagingStore over another local folder bound to the same bucket (another worker) sees the same data.
    const otherDir = await mkdtemp(path.join(tmpdir(), 'store-s3-other-'));
    configureStorage(otherDir, {
      url: s3.storeUrl('unit'),
      endpoint: s3.endpoint,
      credentials: s3.credentials,
    });
    const ref2 = await new StagingStore(path.join(dataDir, 'staging')).putJson('x/plan.json', { creates: 3 });
    expect(
      await new StagingStore(path.join(otherDir, 'staging')).getJson(ref2, z.object({ creates: z.number() })),
    ).toEqual({
      creates: 3,
    });
  });

  it('keeps a journal as one object per entry, in write order, readable by another process', async () => {
    const schema = z.object({ n: z.number() });
    const journal = new JsonLinesJournal(
      path.join(dataDir, 'runs', 'run-j', 'journal', 'batch-00001.ndjson'),
      schema,
    );
    await Promise.all(Array.from({ length: 20 }, (_, n) => journal.append({ n })));
    await journal.append({ n: 20 });
    const entries = await journal.entries();
    expect(entries.map((e) => e.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 21 }, (_, n) => n));
    expect(entries.at(-1)).toEqual({ n: 20 });
    expect(await store.list('runs/run-j/journal/batch-00001.ndjson.d/')).toHaveLength(21);
    expect(await JsonLinesJournal.namesIn(path.join(dataDir, 'runs', 'run-j', 'journal'))).toEqual([
      'batch-00001.ndjson',
    ]);
    // A writer elsewhere (its own sequence cache) appends after: it takes the next free number, never an old one.
    const other = new S3Store(
      (store as S3Store).client,
      (store as S3Store).bucket,
      (store as S3Store).prefix,
    );
    expect(
      await other.putIfAbsent('runs/run-j/journal/batch-00001.ndjson.d/0000000021.json', '{"n":99}'),
    ).toBe(false);
    await journal.append({ n: 21 });
    expect((await journal.entries()).at(-1)).toEqual({ n: 21 });
  });

  it('fetches an s3:// input to a local file, and says when there is none', async () => {
    await store.put('inputs/wf-1/orders.csv', 'a,b\n1,2\n');
    const local = path.join(dataDir, 'copy.csv');
    expect(await copyInput(`s3://${s3.bucket}/unit/inputs/wf-1/orders.csv`, local)).toBe(true);
    expect(await readFile(local, 'utf8')).toBe('a,b\n1,2\n');
    expect(await copyInput(`s3://${s3.bucket}/unit/inputs/wf-1/missing.csv`, local)).toBe(false);
  });

  it('an s3:// input over the size limit is refused while it downloads: no local copy, one bounded error', async () => {
    // The limit is the readers' largest (100 MiB); a small one here stands for it, so the test moves 64 KiB.
    await store.put('inputs/wf-2/huge.csv', Buffer.alloc(64 * 1024, 0x61));
    const local = path.join(dataDir, 'huge-copy.csv');
    await expect(
      copyInput(`s3://${s3.bucket}/unit/inputs/wf-2/huge.csv`, local, 16 * 1024),
    ).rejects.toMatchObject({ code: 'file_too_large', message: expect.stringContaining('16,384 bytes') });
    await expect(readFile(local)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('gives a presigned https-style link that fetches the object without credentials', async () => {
    await store.put('runs/r/rejects.csv', 'row,reason\n3,missing size\n');
    const link = await store.presign('runs/r/rejects.csv', 24 * 3600);
    expect(link).toMatch(/X-Amz-Expires=86400/);
    const response = await fetch(link);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('row,reason\n3,missing size\n');
  });

  // A presigned link is only as good as the credentials that signed it: made with an STS session, SSO or an instance
  // role's, it stops working when they expire, however long it was asked to last.
  it('says links last until the temporary credentials signing them expire, when that is sooner than 24 hours', async () => {
    const bucketStore = store as S3Store;
    await bucketStore.put('runs/r2/rejects.csv', 'row,reason\n');
    const expiration = new Date(Date.now() + 50 * 60_000);
    const base = bucketStore.client.config;
    const signing = await base.credentials();
    const temporary = new S3Store(
      new S3Client({
        endpoint: s3.endpoint,
        region: await base.region(),
        forcePathStyle: true,
        credentials: async () => ({ ...signing, expiration }),
      }),
      bucketStore.bucket,
      bucketStore.prefix,
    );
    const result = { rejectsFile: temporary.urlOf('runs/r2/rejects.csv') };
    const lines: string[] = [];
    await printStoreLinks(temporary, result, (line) => lines.push(line));
    const until = `${expiration.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    expect(lines[0]).toBe(
      `Files of this run in ${temporary.url} (links valid until ${until}, when the AWS credentials signing them expire):`,
    );
    const [link] = await storeLinksIn(temporary, `Plan: ${result.rejectsFile}`);
    expect(link?.expiresAt).toBe(expiration.toISOString());
    lines.length = 0;
    await printStoreLinks(bucketStore, { rejectsFile: bucketStore.urlOf('runs/r2/rejects.csv') }, (line) =>
      lines.push(line),
    );
    expect(lines[0]).toBe(`Files of this run in ${bucketStore.url} (links valid for 24 hours):`);
  });

  it('refuses bad credentials at check time with one clear line', async () => {
    const bad = openStore(
      {
        url: s3.storeUrl('x'),
        endpoint: s3.endpoint,
        credentials: { accessKeyId: 'nobody', secretAccessKey: 'wrong-secret' },
      },
      dataDir,
    );
    await expect(bad.check()).rejects.toThrow(/credentials were refused/);
    const noBucket = openStore(
      { url: 's3://no-such-bucket/x', endpoint: s3.endpoint, credentials: s3.credentials },
      dataDir,
    );
    await expect(noBucket.check()).rejects.toThrow(/bucket does not exist/);
    await writeFile(path.join(dataDir, 'x'), '');
  });

  // Issue 20: "Bad or missing credentials: one clear error at worker start."
  it('a worker with refused credentials stops at start with one line, before it polls', () => {
    const run = (extra: Record<string, string>) =>
      spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'worker'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dataDir,
          TEMPORAL_ADDRESS: '127.0.0.1:1',
          TRACEABILITY_BASE_URL: 'http://127.0.0.1:1/api/v2',
          TRACEABILITY_API_KEY: 'unused-key',
          TRACE_DATA_DIR: dataDir,
          TRACE_STORE_URL: s3.storeUrl('x'),
          AWS_ENDPOINT_URL_S3: s3.endpoint,
          ...extra,
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const refused = run({
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'not-the-secret',
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `trace-sync: TRACE_STORE_URL ${s3.storeUrl('x')}: the credentials were refused (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`,
    ]);
    expect(refused.stderr + refused.stdout).not.toContain('not-the-secret');
    const missing = run({});
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim().split('\n')).toEqual([
      `trace-sync: TRACE_STORE_URL ${s3.storeUrl('x')}: no credentials were found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`,
    ]);
  }, 120_000);
});

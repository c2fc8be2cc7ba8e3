import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { filedDropUrls, runFileKeys, storeLinksIn } from '../../../cli/store-files';
import { inboxDetails } from '../../../workflows/inbox';
import { JsonLinesJournal, RunFolder } from '../../../connectors/staging';
import { configureStorage, LocalStore, openStore, S3Store } from '../../../connectors/storage';
import { ConfigError, loadConfig } from '../../../worker/config';
import { thrown } from '../../harness/errors';

const configError = (env: NodeJS.ProcessEnv): ConfigError => thrown(ConfigError, () => loadConfig(env));

describe('TRACE_STORE_URL and the AWS SDK variables', () => {
  it('reads an s3:// store with an S3-compatible endpoint; AWS_ENDPOINT_URL_S3 wins over AWS_ENDPOINT_URL', () => {
    const config = loadConfig({
      TRACE_STORE_URL: 's3://trace/prod',
      AWS_ENDPOINT_URL: 'http://general:9000',
      AWS_ENDPOINT_URL_S3: 'http://minio:9000',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    expect(config.store).toEqual({
      url: 's3://trace/prod',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
    });
    expect(JSON.stringify(config)).not.toContain('secret');
    expect(
      loadConfig({ TRACE_STORE_URL: 's3://trace', AWS_ENDPOINT_URL: 'http://general:9000' }).store?.endpoint,
    ).toBe('http://general:9000');
    const store = openStore(loadConfig({ TRACE_STORE_URL: 's3://trace/prod/' }).store ?? {}, '/data');
    expect(store).toBeInstanceOf(S3Store);
    expect(store.urlOf('runs/x/rejects.csv')).toBe('s3://trace/prod/runs/x/rejects.csv');
  });

  it('defaults to the data folder, and takes file:///path', () => {
    expect(openStore(loadConfig({}).store ?? {}, '/data')).toEqual(new LocalStore('/data'));
    expect(openStore(loadConfig({ TRACE_STORE_URL: 'file:///srv/trace' }).store ?? {}, '/data')).toEqual(
      new LocalStore('/srv/trace'),
    );
  });

  it('names the variable of a bad value, never echoing a secret', () => {
    expect(configError({ TRACE_STORE_URL: 'ftp://x' }).message).toContain(
      'TRACE_STORE_URL must be file:///path or s3://bucket/prefix',
    );
    expect(configError({ AWS_ENDPOINT_URL_S3: 'minio:9000' }).message).toContain(
      'AWS_ENDPOINT_URL_S3 must be an http(s) URL',
    );
    const half = configError({ TRACE_STORE_URL: 's3://trace', AWS_SECRET_ACCESS_KEY: 'very-secret-value' });
    expect(half.message).toContain('AWS_ACCESS_KEY_ID must be set together with the other AWS key variable');
    expect(half.message).not.toContain('very-secret-value');
  });
});

describe('the local store', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'local-store-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('writes a key once with putIfAbsent and lists keys without temporary files', async () => {
    const store = new LocalStore(root);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.putIfAbsent('a/claim.json', `w${i}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    await store.put('a/b/c.txt', 'x');
    expect(await store.list('a/')).toEqual(['a/b/c.txt', 'a/claim.json']);
    expect((await readdir(path.join(root, 'a'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(() => store.pathOf('../escape')).toThrow(/relative path inside the store/);
  });

  it('keeps a journal as one JSON-lines file, listed by name, replaced whole by writeAll', async () => {
    const folder = path.join(root, 'journal');
    const journal = new JsonLinesJournal(
      path.join(folder, 'batch-00001.ndjson'),
      z.object({ n: z.number() }),
    );
    await journal.append({ n: 1 });
    await journal.append({ n: 2 });
    expect(await journal.entries()).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await readdir(folder)).toEqual(['batch-00001.ndjson']);
    expect(await JsonLinesJournal.namesIn(folder)).toEqual(['batch-00001.ndjson']);
    await journal.writeAll([{ n: 7 }]);
    expect(await journal.entries()).toEqual([{ n: 7 }]);
  });
});

describe('the CLI finds the run files a result names', () => {
  it('maps worker paths of runs/, reports/ and exports/ to store keys, whatever the data folder', () => {
    const keys = runFileKeys({
      rejectsFile: '/data/runs/plm-import-a.csv-2026/rejects.csv',
      resultFile: '/srv/x/runs/plm-import-a.csv-2026/result.json',
      files: {
        csv: '/home/me/.data/reports/certificate-expiry/2026-01-15/certificate-expiry-2026-01-15.csv',
      },
      file: 's3://trace/inputs/a.csv',
      rows: 12,
    });
    expect(keys).toEqual([
      { label: 'rejectsFile', key: 'runs/plm-import-a.csv-2026/rejects.csv' },
      { label: 'resultFile', key: 'runs/plm-import-a.csv-2026/result.json' },
      { label: 'files.csv', key: 'reports/certificate-expiry/2026-01-15/certificate-expiry-2026-01-15.csv' },
    ]);
  });

  // "every run file a result or approval status names gets an operator-usable location": the approval gate names its
  // plan files and held-back.csv by their URL in the store, which an S3 store's CLI links too.
  it("maps the store's own s3:// URLs of run files to keys; inputs, other buckets and folders are not run files", () => {
    const keys = runFileKeys(
      {
        approval: {
          planHtml: 's3://trace/prod/runs/plm-import-a.csv-2026/plan.html',
          replannedFile: 's3://trace/prod/runs/plm-import-a.csv-2026/held-back.csv',
        },
        rejectsFile: '/data/runs/plm-import-a.csv-2026/rejects.csv',
        file: 's3://trace/prod/inputs/plm-import-a.csv-2026/a.csv',
        elsewhere: 's3://other/prod/runs/plm-import-a.csv-2026/plan.xlsx',
        sibling: 's3://trace/production/runs/x/plan.xlsx',
        folder: 's3://trace/prod/runs/plm-import-a.csv-2026',
      },
      's3://trace/prod',
    );
    expect(keys).toEqual([
      { label: 'approval.planHtml', key: 'runs/plm-import-a.csv-2026/plan.html' },
      { label: 'approval.replannedFile', key: 'runs/plm-import-a.csv-2026/held-back.csv' },
      { label: 'rejectsFile', key: 'runs/plm-import-a.csv-2026/rejects.csv' },
    ]);
  });

  it('finds the plan files a run awaiting approval names in its details, in order, each once', async () => {
    const store = new LocalStore(await mkdtemp(path.join(tmpdir(), 'links-')));
    await store.put('runs/r/plan.html', '<html>');
    await store.put('runs/r/plan.xlsx', 'xlsx');
    const url = store.url;
    const links = await storeLinksIn(
      store,
      `**Awaiting approval**: 1 to create.\n\nPlan: ${url}/runs/r/plan.html (and ${url}/runs/r/plan.xlsx).\n\n` +
        `Again: ${url}/runs/r/plan.html; gone: ${url}/runs/r/held-back.csv.`,
    );
    expect(links.map((link) => link.url)).toEqual([
      store.urlOf('runs/r/plan.html'),
      store.urlOf('runs/r/plan.xlsx'),
    ]);
  });
});

describe('TRACE_STORE_URL=file:///path', () => {
  it('puts staged data, journals and published run files in that folder instead of the data folder', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'file-store-data-'));
    const other = await mkdtemp(path.join(tmpdir(), 'file-store-'));
    try {
      configureStorage(dataDir, { url: pathToFileURL(other).href });
      const run = new RunFolder(dataDir, 'run-f', ['staging']);
      const ref = await run.staging.putJson(run.key('manifest.json'), { batches: 2 });
      expect(await run.staging.getJson(ref, z.object({ batches: z.number() }))).toEqual({ batches: 2 });
      const journal = new JsonLinesJournal(
        run.file('journal', 'batch-00001.ndjson'),
        z.object({ n: z.number() }),
      );
      await journal.append({ n: 1 });
      await mkdir(run.path, { recursive: true });
      await writeFile(run.file('rejects.csv'), 'row,reason\n');
      expect(await run.publish('rejects.csv')).toBe(
        pathToFileURL(path.join(other, 'runs', 'run-f', 'rejects.csv')).href,
      );
      expect((await new LocalStore(other).list('runs/run-f/')).sort()).toEqual([
        'runs/run-f/journal/batch-00001.ndjson',
        'runs/run-f/rejects.csv',
        'runs/run-f/staging/manifest.json',
      ]);
      expect(existsSync(path.join(dataDir, 'runs', 'run-f', 'staging'))).toBe(false);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await rm(other, { recursive: true, force: true });
    }
  });
});

// On S3 "every file a result, the run's details or its memo names is named by its store location"; on the local
// default, by its path in the run folder as before.
describe('where a run names its files', () => {
  it('by the path in the run folder without TRACE_STORE_URL, by the s3:// URL with an S3 store', async () => {
    const local = await mkdtemp(path.join(tmpdir(), 'location-local-'));
    const onS3 = await mkdtemp(path.join(tmpdir(), 'location-s3-'));
    try {
      configureStorage(local, {});
      expect(new RunFolder(local, 'run-l').location('rejects.csv')).toBe(
        path.join(local, 'runs', 'run-l', 'rejects.csv'),
      );
      configureStorage(onS3, { url: 's3://trace/prod', endpoint: 'http://127.0.0.1:9', region: 'us-east-1' });
      expect(new RunFolder(onS3, 'run-s').location('result.json')).toBe(
        's3://trace/prod/runs/run-s/result.json',
      );
    } finally {
      await rm(local, { recursive: true, force: true });
      await rm(onS3, { recursive: true, force: true });
    }
  });
});

// An inbox is a prefix of its own (s3://bucket/inbox/erp), outside the store's: its filed drops are no run files, yet
// the operator needs to open them.
describe("an inbox's filed drops: where the operator finds them", () => {
  it("the CLI links every s3:// movedTo a result names, in any bucket; a worker's path is no link", () => {
    expect(
      filedDropUrls({
        folder: 's3://trace/inbox/erp',
        files: [
          { name: 'a.csv', movedTo: 's3://trace/inbox/erp/processed/a.csv' },
          { name: 'b.csv', movedTo: 's3://drops/erp/failed/b.csv' },
          { name: 'c.csv', movedTo: null },
          { name: 'd.csv', movedTo: '/srv/inbox/processed/d.csv' },
        ],
      }),
    ).toEqual([
      { label: 'files.movedTo', url: 's3://trace/inbox/erp/processed/a.csv' },
      { label: 'files.movedTo', url: 's3://drops/erp/failed/b.csv' },
    ]);
  });

  it("the run's details count the outcomes and name where each drop is now, its run and a failure's reason", () => {
    const details = inboxDetails('/srv/inbox', [
      {
        name: 'a.csv',
        workflowId: 'erp-orders-a',
        outcome: 'processed',
        movedTo: '/srv/inbox/processed/a.csv',
      },
      {
        name: 'b.csv',
        workflowId: 'erp-orders-b',
        outcome: 'failed',
        movedTo: '/srv/inbox/failed/b.csv',
        error: 'no quantity column',
      },
      { name: 'c.csv', workflowId: 'erp-orders-c', outcome: 'taken', movedTo: null },
    ]);
    expect(details.split('\n')).toEqual([
      'Inbox /srv/inbox: 3 files, 1 processed, 1 failed, 1 taken',
      '- a.csv: processed, now at /srv/inbox/processed/a.csv (run erp-orders-a)',
      '- b.csv: failed, now at /srv/inbox/failed/b.csv (run erp-orders-b): no quantity column',
      '- c.csv: taken, another inbox run handles it (run erp-orders-c)',
    ]);
  });

  it("the run's details say why a drop was not moved, or that it was already", () => {
    const details = inboxDetails('/srv/inbox', [
      {
        name: 'a.csv',
        workflowId: 'erp-orders-a',
        outcome: 'processed',
        movedTo: null,
        note: 'the file changed since it was listed; the next run takes it',
      },
      {
        name: 'b.csv',
        workflowId: 'erp-orders-b',
        outcome: 'already-processed',
        movedTo: '/srv/inbox/processed/b.csv',
        note: 'already moved',
      },
    ]);
    expect(details.split('\n')).toEqual([
      'Inbox /srv/inbox: 2 files, 1 processed, 1 already-processed',
      '- a.csv: processed, not moved: the file changed since it was listed; the next run takes it (run erp-orders-a)',
      '- b.csv: already-processed, now at /srv/inbox/processed/b.csv: already moved (run erp-orders-b)',
    ]);
  });

  it("a failed drop's long reason is cut at a word, with an ellipsis, never mid-word", () => {
    const reason = `${'the sheet names '.repeat(12)}its columns somewhere else entirely`;
    const details = inboxDetails('/srv/inbox', [
      {
        name: 'b.csv',
        workflowId: 'erp-orders-b',
        outcome: 'failed',
        movedTo: '/srv/inbox/failed/b.csv',
        error: reason,
      },
    ]);
    const line = details.split('\n')[1] as string;
    const shown = line.slice(line.indexOf('(run erp-orders-b): ') + '(run erp-orders-b): '.length);
    expect(shown.endsWith(' its…')).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(201);
    expect(reason.startsWith(shown.slice(0, -1))).toBe(true);
    expect(details.split('\n')[0]).toBe('Inbox /srv/inbox: 1 file, 1 failed');
  });

  it("a failed drop's reason of one long word is still cut, with an ellipsis", () => {
    const details = inboxDetails('/srv/inbox', [
      { name: 'b.csv', workflowId: 'erp-orders-b', outcome: 'failed', movedTo: null, error: 'x'.repeat(500) },
    ]);
    expect(details.split('\n')[1]).toBe(`- b.csv: failed, not moved (run erp-orders-b): ${'x'.repeat(199)}…`);
  });

  it("the run's details say a drop left for the next run is still in the inbox, and why", () => {
    const details = inboxDetails('/srv/inbox', [
      {
        name: 'a.csv',
        workflowId: 'erp-orders-a',
        outcome: 'left-in-inbox',
        movedTo: null,
        error: 'GET /companies failed with 503',
        note: 'the API could not be reached or kept failing; the next run retries it (try 1 of 5)',
      },
    ]);
    expect(details.split('\n')).toEqual([
      'Inbox /srv/inbox: 1 file, 1 left-in-inbox',
      '- a.csv: left-in-inbox, still in the inbox: the API could not be reached or kept failing; the next run retries it (try 1 of 5) (run erp-orders-a): GET /companies failed with 503',
    ]);
  });
});
